package io.strata.ufs.s3;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server for tests: local-s3 in this JVM, in memory, on a free 127.0.0.1 port
 * (it takes no port 0), with a client of its own to arrange buckets and objects behind Strata's
 * back. A test class registers one ({@code @RegisterExtension static final LocalS3Store store =
 * LocalS3Store.withBuckets(...)}): it starts before the class's tests, with those buckets, and
 * stops after them.
 */
final class LocalS3Store implements BeforeAllCallback, AfterAllCallback {
  private final List<String> buckets;
  private LocalS3 server;
  private S3Client admin;

  private LocalS3Store(List<String> buckets) {
    this.buckets = buckets;
  }

  static LocalS3Store withBuckets(String... buckets) {
    return new LocalS3Store(List.of(buckets));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    server = LocalS3.builder().port(port).mode(LocalS3Mode.IN_MEMORY).build();
    server.start();
    admin = S3Clients.build(S3Settings.of(options(port)));
    buckets.forEach(b -> admin.createBucket(r -> r.bucket(b)));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    admin.close();
    server.shutdown();
  }

  /** The mount options that reach a store on {@code port}: this one's, or a proxy's before it. */
  static Map<String, String> options(int port) {
    return Map.of(
        S3Settings.ENDPOINT, "http://127.0.0.1:" + port,
        S3Settings.PATH_STYLE, "true",
        S3Settings.ACCESS_KEY, "test-access",
        S3Settings.SECRET_KEY, "test-secret",
        S3Settings.PART_SIZE, "5MiB",
        S3Settings.RETRY_BUDGET, "20s");
  }

  int port() {
    return server.getPort();
  }

  S3Client admin() {
    return admin;
  }
}
