package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import java.nio.file.Files;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A local user may hold only its share of the SSD tier pinned through short-circuit leases (issue
 * 25, item 4): past it, its reads go over the domain socket, with the same bytes.
 */
class LeaseShareTest {
  private static final int LENGTH = 6 << 20;
  private static MiniCluster cluster;
  private static byte[] data;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        MiniCluster.builder()
            .workers(1)
            .domainSockets()
            .ssd("64MiB")
            .property(WorkerKeys.PAGE_SIZE, "64KiB")
            .property(WorkerKeys.SEGMENT_SIZE, "1MiB")
            .property(WorkerKeys.MEM_SIZE, "256KiB")
            // 5 % of 64 segments: a user may hold 3 pinned; the file lies in about 7.
            .property(WorkerKeys.LEASE_MAX_PERCENT, "5")
            .start();
    data = new byte[LENGTH];
    new Random(5).nextBytes(data);
    Files.write(cluster.ufsRoot().resolve("big.bin"), data);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void pastItsShare_aUserReadsOverTheSocket_theSameBytes() throws Exception {
    Configuration conf = cluster.clientConf();
    conf.set(UserKeys.DOMAIN_SOCKET, "true");
    conf.set(UserKeys.SHORT_CIRCUIT, "true");
    conf.set(UserKeys.OPEN_FIRST_BYTES, "0");
    try (FileSystem fs = FileSystem.create(conf)) {
      // Twice: into the SSD tier, then each page's checksum verified there.
      for (int i = 0; i < 2; i++) {
        try (FileInStream in = fs.open("/big.bin")) {
          assertThat(in.readAllBytes()).isEqualTo(data);
        }
      }
      double leases = counter(WorkerMetrics.SHORT_CIRCUIT_LEASES);
      double sent = socketBytes();
      try (FileSystem fresh = FileSystem.create(conf);
          FileInStream in = fresh.open("/big.bin")) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
      assertThat(counter(WorkerMetrics.SHORT_CIRCUIT_LEASES))
          .as("leases for the segments within the share")
          .isGreaterThan(leases);
      assertThat(socketBytes() - sent)
          .as("the pages beyond the share came over the socket")
          .isGreaterThanOrEqualTo(2 << 20);
    }
  }

  private static double counter(String name) {
    return WorkerCounters.counter(cluster.worker(0), name);
  }

  private static double socketBytes() {
    return WorkerCounters.socketBytes(cluster.worker(0));
  }
}
