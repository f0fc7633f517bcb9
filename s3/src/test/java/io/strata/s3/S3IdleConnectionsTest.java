package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.testkit.MiniCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Issue 56, bad input: 10,000 idle connections to an endpoint of the default limits (4,096, a
 * quarter of them from one address) leave it serving: the oldest idle ones give way to new ones,
 * and a client's requests go through while they are held.
 */
class S3IdleConnectionsTest {
  private static final int IDLE = 10_000;

  @TempDir static Path conf;

  private static MiniCluster cluster;
  private static S3Process endpoint;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().start();
    endpoint = TestEndpoints.start(cluster.clientConf(), conf);
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(endpoint, cluster);
  }

  /** This process's limit of open files (the JVM raises its soft limit to the hard one). */
  private static long openFilesLimit() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
      if (line.startsWith("Max open files")) {
        String soft = new java.util.Scanner(line.substring("Max open files".length())).next();
        return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
      }
    }
    return 0;
  }

  private static long openFiles() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void tenThousandIdleConnections_leaveTheEndpointServing() throws Exception {
    // Both ends are this process: the test's sockets and the endpoint's (at most 1,024 of them).
    assumeThat(openFilesLimit())
        .as("10,000 connections need more open files than this process may have (ulimit -n)")
        .isGreaterThan(IDLE + 4_096L + 1_000L);
    List<Socket> idle = new ArrayList<>(IDLE);
    try (S3Client s3 = TestEndpoints.client(endpoint)) {
      s3.createBucket(b -> b.bucket("idle"));
      long before = openFiles();
      for (int i = 0; i < IDLE; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), endpoint.port()));
        idle.add(s);
        if (i % 2_500 == 2_499) {
          s3.putObject(p -> p.bucket("idle").key("k"), RequestBody.fromString("still here"));
        }
      }
      assertThat(s3.getObjectAsBytes(g -> g.bucket("idle").key("k")).asUtf8String())
          .isEqualTo("still here");
      // The endpoint kept at most a quarter of its limit (1,024) from this one address: what this
      // process holds beyond the test's own sockets is far below the 10,000 opened.
      assertThat(openFiles() - before - IDLE).isLessThan(1_500);
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }
}
