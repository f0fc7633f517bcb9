package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * fs pin and fs setTtl on real processes: a pinned dataset stays cached while the cache turns over
 * several times, a TTL frees (never deletes), and both are kept across SIGKILLed masters and
 * workers.
 */
class PinAndTtlTest {
  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void pinsKeepAndTtlsFree_acrossKilledProcesses() throws Exception {
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .dir(dir)
            .ssd("8MiB")
            .property(WorkerKeys.MEM_SIZE, "1MiB")
            .property(WorkerKeys.PAGE_SIZE, "64KiB")
            .property(WorkerKeys.SEGMENT_SIZE, "1MiB")
            .property(WorkerKeys.POLICY_CHECK_INTERVAL, "500ms")
            .start()) {
      ShellRunner shell = new ShellRunner(cluster::clientConf);
      write(cluster, "/set/a", 2 * MIB);
      write(cluster, "/set/b", MIB);
      write(cluster, "/cold/a", 2 * MIB);
      write(cluster, "/scratch/x", MIB);
      for (int i = 0; i < 16; i++) {
        write(cluster, "/stream/" + i, 2 * MIB);
        write(cluster, "/stream/again/" + i, 2 * MIB);
      }

      ShellRunner.Run pin = shell.run("fs", "pin", "/set");
      assertThat(pin.out()).isEqualTo("pinned /set\n");
      assertThat(pin.err())
          .as("no worker left behind: the worker reported the pin within the wait")
          .isEmpty();
      assertThat(shell.run("fs", "location", "/set/a").out())
          .contains("  policy:    pinned (set on /set)");
      ShellRunner.Run under = shell.run("fs", "unpin", "/set/a");
      assertThat(under.code()).isEqualTo(1);
      assertThat(under.err())
          .isEqualTo("strata: NOT_FOUND: /set/a is not pinned (its folder /set is pinned)\n");
      assertThat(shell.run("fs", "pin", "/nope").err())
          .isEqualTo("strata: NOT_FOUND: /nope does not exist\n");
      assertThat(shell.run("fs", "setTtl", "/scratch", "5").err())
          .isEqualTo("strata: INVALID_ARGUMENT: a TTL is at least 1s: 5\n");

      try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
        readAll(fs, "/set/a", "/set/b", "/cold/a");
        turnOver(fs, "");
        assertThat(cached(fs, "/set/a")).as("pinned").isEqualTo(2 * MIB);
        assertThat(cached(fs, "/set/b")).as("pinned").isEqualTo(MIB);
        assertThat(cached(fs, "/cold/a")).as("read as long ago, not pinned").isZero();
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () ->
                    assertThat(shell.run("fsadmin", "report", "capacity").out())
                        .containsPattern("PIN CAPACITY.*\\n\\S+ +3\\.0 ?MiB +4\\.0 ?MiB"));

        assertThat(shell.run("fs", "setTtl", "/scratch", "2s").out())
            .isEqualTo("cached data of /scratch is freed 2s after it is cached\n");
        readAll(fs, "/scratch/x");
        assertThat(cached(fs, "/scratch/x")).isEqualTo(MIB);
        await()
            .atMost(Duration.ofSeconds(15))
            .untilAsserted(() -> assertThat(cached(fs, "/scratch/x")).isZero());
        assertThat(cluster.ufsRoot().resolve("scratch/x")).as("freed, not deleted").exists();
      }

      cluster.master(0).kill();
      cluster.worker(0).kill();
      cluster.restart(cluster.master(0));
      cluster.restart(cluster.worker(0));
      assertThat(shell.run("fs", "location", "/scratch/x").out())
          .contains("  policy:    freed from the cache 2s after it is cached (set on /scratch)");
      try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
        assertThat(cached(fs, "/set/a")).as("kept on disk across the restart").isEqualTo(2 * MIB);
        turnOver(fs, "again/");
        assertThat(cached(fs, "/set/a")).as("still pinned after the restarts").isEqualTo(2 * MIB);
        assertThat(shell.run("fs", "unpin", "/set").out()).isEqualTo("unpinned /set\n");
        turnOver(fs, "");
        assertThat(cached(fs, "/set/a")).as("unpinned, then cold").isZero();
      }
    }
  }

  private static void write(ForkedCluster cluster, String path, int bytes) throws Exception {
    Path f = cluster.ufsRoot().resolve(path.substring(1));
    Files.createDirectories(f.getParent());
    byte[] data = new byte[bytes];
    new Random(path.hashCode()).nextBytes(data);
    Files.write(f, data);
  }

  /** Reads 32 MiB of other files: four times the worker's SSD quota. */
  private static void turnOver(FileSystem fs, String round) throws Exception {
    for (int i = 0; i < 16; i++) {
      readAll(fs, "/stream/" + round + i);
    }
  }

  private static void readAll(FileSystem fs, String... paths) throws Exception {
    byte[] buf = new byte[MIB];
    for (String p : paths) {
      try (FileInStream in = fs.open(p)) {
        while (in.read(buf, 0, buf.length) >= 0) {
          // Read through the cache.
        }
      }
    }
  }

  private static long cached(FileSystem fs, String path) {
    return fs.getStatusWithCacheInfo(path).cachedBytes();
  }
}
