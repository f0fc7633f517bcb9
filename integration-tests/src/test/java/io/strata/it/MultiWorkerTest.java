package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.UserKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Three workers sharing the namespace by the hash ring. */
class MultiWorkerTest {
  private static MiniCluster cluster;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        MiniCluster.builder()
            .workers(3)
            .property(io.strata.core.conf.WorkerKeys.PAGE_SIZE, "64KiB")
            .start();
    fs = cluster.fileSystem();
  }

  @AfterAll
  static void stop() {
    fs.close();
    cluster.close();
  }

  private static byte[] readAll(FileSystem fs, String path) throws Exception {
    try (FileInStream in = fs.open(path)) {
      return in.readAllBytes();
    }
  }

  @Test
  void files_spreadOverEveryWorker_andReadBackExactly() throws Exception {
    Random r = new Random(11);
    byte[][] contents = new byte[40][];
    for (int i = 0; i < contents.length; i++) {
      contents[i] = new byte[r.nextInt(300_000)];
      r.nextBytes(contents[i]);
      try (FileOutStream out = fs.create("/spread/f" + i, WriteOptions.DEFAULT)) {
        out.write(contents[i]);
      }
    }
    for (int i = 0; i < contents.length; i++) {
      assertThat(readAll(fs, "/spread/f" + i)).isEqualTo(contents[i]);
      byte[] chunk = new byte[1000];
      try (FileInStream in = fs.open("/spread/f" + i)) {
        long pos = contents[i].length / 2;
        int n = Math.max(0, in.positionedRead(pos, chunk, 0, chunk.length));
        assertThat(Arrays.copyOf(chunk, n))
            .isEqualTo(
                Arrays.copyOfRange(
                    contents[i], (int) pos, (int) Math.min(contents[i].length, pos + 1000)));
      }
    }
    for (WorkerProcess w : cluster.workers()) {
      assertThat(w.registry().get(WorkerMetrics.UFS_PAGE_READS).counter().count())
          .as("every worker owns files")
          .isPositive();
    }
    assertThat(fs.listStatus("/spread")).hasSize(40);
  }

  @Test
  void fileChangedBehindStrata_isSeenWithSync_andAnOpenStreamNeverMixesVersions() throws Exception {
    byte[] v1 = new byte[400_000];
    Arrays.fill(v1, (byte) 1);
    Files.write(cluster.ufsRoot().resolve("changing.bin"), v1);
    var syncing = cluster.clientConf();
    syncing.set(UserKeys.METADATA_SYNC_INTERVAL, "0");
    // Without first bytes at open, the old stream's later read must go to the UFS and meet v2.
    syncing.set(UserKeys.OPEN_FIRST_BYTES, "0");
    try (FileSystem fresh = FileSystem.create(syncing)) {
      FileInStream old = fresh.open("/changing.bin");
      byte[] last = new byte[100];
      // The last page, not the first: a read from the start would have the worker read the rest
      // of this small file ahead, and the old stream would then get its own version's bytes.
      old.readFully(v1.length - 100, last, 0, 100);

      byte[] v2 = new byte[400_000];
      Arrays.fill(v2, (byte) 2);
      Path file = cluster.ufsRoot().resolve("changing.bin");
      Files.write(file, v2);
      Files.setLastModifiedTime(
          file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));

      assertThat(readAll(fresh, "/changing.bin")).isEqualTo(v2);
      assertThatThrownBy(() -> old.readFully(300_000, new byte[100], 0, 100))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION));
    }
  }

  @Test
  void fileChangedBehindStrata_failsTheStaleRead_thenTheNextOpenSeesTheNewVersion()
      throws Exception {
    Path file = cluster.ufsRoot().resolve("stale.bin");
    byte[] v1 = new byte[300_000];
    Arrays.fill(v1, (byte) 1);
    Files.write(file, v1);
    assertThat(fs.getStatus("/stale.bin").length()).isEqualTo(v1.length);
    byte[] v2 = new byte[200_000];
    Arrays.fill(v2, (byte) 2);
    Files.write(file, v2);
    Files.setLastModifiedTime(
        file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));

    assertThatThrownBy(() -> readAll(fs, "/stale.bin"))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION));
    assertThat(readAll(fs, "/stale.bin")).as("the worker dropped the stale status").isEqualTo(v2);
  }

  @Test
  void newFileInTheUfs_isVisibleAtOnceWithSync() throws Exception {
    assertThat(fs.exists("/late.txt")).isFalse();
    Files.writeString(cluster.ufsRoot().resolve("late.txt"), "late");
    var syncing = cluster.clientConf();
    syncing.set(UserKeys.METADATA_SYNC_INTERVAL, "0");
    // Without first bytes at open, the old stream's later read must go to the UFS and meet v2.
    syncing.set(UserKeys.OPEN_FIRST_BYTES, "0");
    try (FileSystem fresh = FileSystem.create(syncing)) {
      assertThat(fresh.getStatus("/late.txt").length()).isEqualTo(4);
      assertThat(fresh.listStatus("/")).anyMatch(f -> f.name().equals("late.txt"));
    }
  }
}
