package io.strata.core.ufs.s3;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server for tests: local-s3 in this JVM, in memory, on a free 127.0.0.1 port
 * (it takes no port 0), with a client of its own to arrange buckets and objects behind Strata's
 * back.
 */
final class LocalS3Store implements AutoCloseable {
  private final LocalS3 server;
  private final S3Client admin;

  private LocalS3Store(LocalS3 server) {
    this.server = server;
    this.admin = S3Clients.build(S3Settings.of(options(server.getPort())));
  }

  static LocalS3Store start() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    LocalS3 s3 = LocalS3.builder().port(port).mode(LocalS3Mode.IN_MEMORY).build();
    s3.start();
    return new LocalS3Store(s3);
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

  @Override
  public void close() {
    admin.close();
    server.shutdown();
  }
}
