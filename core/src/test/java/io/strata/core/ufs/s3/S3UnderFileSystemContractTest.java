package io.strata.core.ufs.s3;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.UnderFileSystemContract;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The under-storage contract on S3: a real S3-compatible server (local-s3, in this JVM) on
 * 127.0.0.1, a bucket per test, mounted under a prefix.
 */
class S3UnderFileSystemContractTest extends UnderFileSystemContract {
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static LocalS3 server;
  private static S3Client admin;
  private String bucket;

  static Map<String, String> options(int port) {
    return Map.of(
        S3Settings.ENDPOINT, "http://127.0.0.1:" + port,
        S3Settings.PATH_STYLE, "true",
        S3Settings.ACCESS_KEY, "test-access",
        S3Settings.SECRET_KEY, "test-secret",
        S3Settings.PART_SIZE, "5MiB",
        S3Settings.RETRY_BUDGET, "20s");
  }

  @BeforeAll
  static void startServer() throws IOException {
    server = startLocalS3();
    admin = S3Clients.build(S3Settings.of(options(server.getPort())));
  }

  /** local-s3 on a free loopback port (it takes no port 0). */
  static LocalS3 startLocalS3() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    LocalS3 s3 = LocalS3.builder().port(port).mode(LocalS3Mode.IN_MEMORY).build();
    s3.start();
    return s3;
  }

  @AfterAll
  static void stopServer() {
    admin.close();
    server.shutdown();
  }

  @Override
  protected UnderFileSystem open() {
    bucket = "contract-" + BUCKETS.incrementAndGet();
    admin.createBucket(r -> r.bucket(bucket));
    return new S3UnderFileSystem(
        "s3://" + bucket + "/mounted/here", S3Settings.of(options(server.getPort())));
  }

  @Override
  protected void putBehindStrata(String path, byte[] bytes) {
    admin.putObject(r -> r.bucket(bucket).key("mounted/here" + path), RequestBody.fromBytes(bytes));
  }
}
