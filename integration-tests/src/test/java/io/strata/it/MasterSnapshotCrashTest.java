package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StrataException;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Crash consistency of the master's journal: a master taking a snapshot every few entries, killed
 * (SIGKILL) again and again while changes stream in, so that some kills land while a snapshot is
 * being written. Each time it starts again, from a good snapshot, with every change it
 * acknowledged, and leaves no half-written snapshot behind.
 */
class MasterSnapshotCrashTest {
  private static final int KILLS = 8;
  private static final String KEY = WorkerKeys.METADATA_TTL.name();

  @Test
  void aMasterKilledWhileSnapshotting_restartsWithEveryAcknowledgedChange() throws Exception {
    long seed = Long.getLong("strata.crash.seed", System.nanoTime());
    Random random = new Random(seed);
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(0)
            .property(MasterKeys.CHECKPOINT_PERIOD_ENTRIES, "3")
            .start()) {
      AtomicLong acknowledged = new AtomicLong();
      int cutShort = 0;
      for (int kill = 0; kill < KILLS; kill++) {
        AtomicBoolean stop = new AtomicBoolean();
        Thread changes = new Thread(() -> change(cluster, acknowledged, stop));
        changes.start();
        Thread.sleep(200 + random.nextInt(800));
        cluster.master(0).kill();
        stop.set(true);
        changes.join(Duration.ofSeconds(30).toMillis());
        long before = acknowledged.get();
        if (snapshotCutShort(cluster.dir())) {
          cutShort++;
        }
        cluster.restart(cluster.master(0));
        cluster.awaitLeader(Duration.ofSeconds(30));
        long restored = secondsSet(cluster);
        assertThat(restored)
            .as("seed %d, kill %d: the last acknowledged change (or one in flight)", seed, kill)
            .isBetween(before, before + 1);
        acknowledged.set(restored);
      }
      System.out.printf(
          "seed %d: %d changes, %d of %d kills cut a snapshot short%n",
          seed, acknowledged.get(), cutShort, KILLS);
      assertThat(acknowledged.get()).as("changes made, seed %d", seed).isGreaterThan(KILLS);
      try (Stream<Path> files = Files.walk(cluster.dir())) {
        List<Path> halfWritten =
            files.filter(p -> p.getFileName().toString().matches("snapshot\\..*\\.tmp")).toList();
        assertThat(halfWritten).as("half-written snapshots left, seed %d", seed).isEmpty();
      }
    }
  }

  /** Whether a snapshot is half written, or written without its MD5. */
  private static boolean snapshotCutShort(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.anyMatch(
          p -> {
            String name = p.getFileName().toString();
            return name.matches("snapshot\\..*\\.tmp")
                || (name.matches("snapshot\\.\\d+_\\d+")
                    && !Files.exists(p.resolveSibling(name + ".md5")));
          });
    }
  }

  /**
   * Sets the key to 1s, 2s, ... until stopped or the master is gone; counts what it acknowledged.
   */
  private static void change(ForkedCluster cluster, AtomicLong acknowledged, AtomicBoolean stop) {
    try (MasterClient client = new MasterClient(cluster.clientConf())) {
      while (!stop.get()) {
        long next = acknowledged.get() + 1;
        UpdateConfRequest request =
            UpdateConfRequest.newBuilder().putValues(KEY, next + "s").build();
        client.call("updateConf", Duration.ofSeconds(2), s -> s.updateConf(request));
        acknowledged.set(next);
      }
    } catch (StrataException masterGone) {
      // Killed mid-call: the change may or may not have been committed.
    }
  }

  private static long secondsSet(ForkedCluster cluster) {
    try (MasterClient client = new MasterClient(cluster.clientConf())) {
      ConfigView view =
          client.call("getConfig", s -> s.getConfig(GetConfigRequest.getDefaultInstance()));
      String value = view.getOverridesOrDefault(KEY, "0s");
      return Long.parseLong(value.substring(0, value.length() - 1));
    }
  }
}
