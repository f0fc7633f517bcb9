package io.strata.s3;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.S3Keys;
import java.net.URI;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The S3 endpoint of a test's in-process cluster, in the test's JVM, and AWS's client of it. */
final class TestEndpoints {
  private TestEndpoints() {}

  /**
   * An endpoint started with {@code c} (a cluster's client configuration and what the test sets) on
   * a free port, its credentials file and multipart uploads in {@code dir}.
   */
  static S3Process start(Configuration c, Path dir) throws Exception {
    c.set(S3Keys.PORT, "0");
    c.set(S3Keys.CREDENTIALS_FILE, dir.resolve("s3-credentials").toString());
    c.set(S3Keys.UPLOADS_DIR, dir.resolve("uploads").toString());
    S3Process endpoint = new S3Process(c);
    endpoint.start();
    return endpoint;
  }

  /** Closes what a test class opened, in this order, skipping what it never got to open. */
  static void close(AutoCloseable... opened) throws Exception {
    for (AutoCloseable c : opened) {
      if (c != null) {
        c.close();
      }
    }
  }

  /** AWS's client of {@code endpoint}, path-style, with its first key pair. */
  static S3Client client(S3Process endpoint) {
    String[] keys = endpoint.firstKeyPair();
    return client(endpoint.port(), keys[0], keys[1]);
  }

  /** AWS's client of the endpoint at {@code port}, path-style, with these keys. */
  static S3Client client(int port, String access, String secret) {
    return S3Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + port))
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(access, secret)))
        .build();
  }
}
