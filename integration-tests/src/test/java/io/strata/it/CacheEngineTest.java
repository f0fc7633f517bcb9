package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's memory and SSD tiers, in a real worker process restarted and killed. */
class CacheEngineTest {
  private static final int PAGE = 64 * 1024;
  private static final String HIT =
      "strata_worker_page_requests_total{process=\"worker\",result=\"hit\"}";
  private static final String MISS =
      "strata_worker_page_requests_total{process=\"worker\",result=\"miss\"}";
  private static final String UFS_PAGES = "strata_worker_ufs_page_reads_total{process=\"worker\"}";

  @TempDir Path dir;
  private ForkedCluster cluster;

  private ForkedCluster start(String quota, String memory) throws Exception {
    cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .dir(dir)
            .property(WorkerKeys.PAGE_SIZE, "64KiB")
            .property(WorkerKeys.MEM_SIZE, memory)
            .property(WorkerKeys.SEGMENT_SIZE, "1MiB")
            .property(WorkerKeys.PAGE_STORE_DIRS, ssd() + ":" + quota)
            .start();
    return cluster;
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private Path ssd() {
    return dir.resolve("ssd");
  }

  private FileSystem fs() {
    var conf = cluster.clientConf();
    conf.set(UserKeys.READ_AHEAD_MAX, "64KiB");
    return FileSystem.create(conf);
  }

  private byte[][] writeFiles(FileSystem fs, String prefix, int count, int size)
      throws IOException {
    byte[][] files = new byte[count][];
    Random r = new Random(prefix.hashCode());
    for (int i = 0; i < count; i++) {
      files[i] = new byte[size];
      r.nextBytes(files[i]);
      try (FileOutStream out = fs.create(prefix + i, WriteOptions.DEFAULT)) {
        out.write(files[i]);
      }
    }
    return files;
  }

  private static void readAll(FileSystem fs, String prefix, byte[][] files) throws IOException {
    for (int i = 0; i < files.length; i++) {
      try (FileInStream in = fs.open(prefix + i)) {
        assertThat(Arrays.equals(in.readAllBytes(), files[i]))
            .as("bytes of %s%d", prefix, i)
            .isTrue();
      }
    }
  }

  private double metric(String series) throws Exception {
    return Scrape.value(cluster.workerWebPort(0), series);
  }

  private double hitShareOf(Runnable reads) throws Exception {
    double hits = metric(HIT);
    double misses = metric(MISS);
    reads.run();
    double h = metric(HIT) - hits;
    double m = metric(MISS) - misses;
    return h / (h + m);
  }

  private long bytesOnDisk() throws IOException {
    Path segments = ssd().resolve("segments");
    if (!Files.exists(segments)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(segments)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private void assertNoOrphans() throws Exception {
    assertThat(
            (long)
                metric(
                    "strata_worker_cache_used_bytes{dir=\""
                        + ssd()
                        + "\",process=\"worker\",tier=\"SSD\"}"))
        .as("used bytes reported = bytes of segment files")
        .isEqualTo(bytesOnDisk());
  }

  private static Runnable unchecked(IoRunnable r) {
    return () -> {
      try {
        r.run();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  private interface IoRunnable {
    void run() throws IOException;
  }

  @Test
  void restart_cleanOrKilled_keepsTheCache() throws Exception {
    start("64MiB", "1MiB");
    byte[][] files;
    try (FileSystem fs = fs()) {
      files = writeFiles(fs, "/restart/f", 24, 5 * PAGE + 100);
      readAll(fs, "/restart/f", files);
    }
    cluster.worker(0).stop();
    cluster.restart(cluster.worker(0));
    try (FileSystem fs = fs()) {
      assertThat(hitShareOf(unchecked(() -> readAll(fs, "/restart/f", files))))
          .as("after a clean restart")
          .isGreaterThanOrEqualTo(0.95);
    }
    cluster.worker(0).kill();
    cluster.restart(cluster.worker(0));
    try (FileSystem fs = fs()) {
      assertThat(hitShareOf(unchecked(() -> readAll(fs, "/restart/f", files))))
          .as("after kill -9")
          .isGreaterThanOrEqualTo(0.95);
      assertNoOrphans();
      assertThat(fs.free("/restart/f3")).isEqualTo(5L * PAGE + 100);
    }
    cluster.worker(0).kill();
    cluster.restart(cluster.worker(0));
    try (FileSystem fs = fs()) {
      double fromUfs = metric(UFS_PAGES);
      readAll(fs, "/restart/f", new byte[][] {files[0], files[1], files[2], files[3]});
      assertThat(metric(UFS_PAGES) - fromUfs)
          .as("the freed file's pages are not served after a restart; the others are")
          .isEqualTo(6);
      assertNoOrphans();
    }
  }

  @Test
  void flippedByteOnSsd_isCaught_andTheReaderGetsTheUfsBytes() throws Exception {
    start("64MiB", "1MiB");
    byte[][] files;
    try (FileSystem fs = fs()) {
      files = writeFiles(fs, "/corrupt/f", 8, 6 * PAGE);
      readAll(fs, "/corrupt/f", files);
    }
    cluster.worker(0).stop();
    try (Stream<Path> s = Files.walk(ssd().resolve("segments"))) {
      for (Path segment : s.filter(Files::isRegularFile).toList()) {
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
          // In the first record's bytes (its header is a few dozen bytes): the middle of a file
          // may fall on a record's header, which the index's checksum of the bytes does not cover.
          long at = PAGE / 2;
          f.seek(at);
          int b = f.read();
          f.seek(at);
          f.write(b ^ 0x5A);
        }
      }
    }
    cluster.restart(cluster.worker(0));
    String failures =
        "strata_worker_page_checksum_failures_total{dir=\""
            + ssd()
            + "\",process=\"worker\",tier=\"SSD\"}";
    try (FileSystem fs = fs()) {
      readAll(fs, "/corrupt/f", files);
      double caught = metric(failures);
      assertThat(caught).isPositive();
      readAll(fs, "/corrupt/f", files);
      assertThat(metric(failures)).as("the corrupt pages were replaced").isEqualTo(caught);
    }
  }

  @Test
  void fillingTheCacheThreeTimes_staysUnderQuota_andDemotesFromMemory() throws Exception {
    start("8MiB", "1MiB");
    long quota = 8L << 20;
    try (FileSystem fs = fs()) {
      byte[][] files = writeFiles(fs, "/fill/f", 24, 16 * PAGE);
      for (int round = 0; round < 2; round++) {
        readAll(fs, "/fill/f", files);
        assertThat(bytesOnDisk()).isLessThanOrEqualTo(quota);
      }
      assertThat(metric("strata_worker_page_demotions_total{process=\"worker\",tier=\"MEM\"}"))
          .isPositive();
      assertThat(
              metric(
                  "strata_worker_page_evictions_total{dir=\""
                      + ssd()
                      + "\",process=\"worker\",tier=\"SSD\"}"))
          .isPositive();
      assertNoOrphans();
    }
    assertThat(new ShellRunner(cluster::clientConf).run("fsadmin", "report", "capacity").out())
        .contains("MEM", "SSD", ssd().toString(), "8.0MiB");
  }

  @Test
  void unwritableCacheFolder_readsComeFromTheUfs_oneLogLine() throws Exception {
    Files.createDirectories(ssd());
    Files.writeString(ssd().resolve("segments"), "a file where the segment folder should be");
    start("8MiB", "256KiB");
    try (FileSystem fs = fs()) {
      byte[][] files = writeFiles(fs, "/unwritable/f", 10, 8 * PAGE);
      readAll(fs, "/unwritable/f", files);
      readAll(fs, "/unwritable/f", files);
    }
    assertThat(cluster.worker(0).isAlive()).isTrue();
    String out = Files.readString(dir.resolve("worker-0.out"));
    assertThat(out.lines().filter(l -> l.contains("cannot be written"))).hasSize(1);
  }

  @Test
  void newFileInTheUfs_appearsWithinTheMetadataTtl() throws Exception {
    cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .dir(dir)
            .property(WorkerKeys.METADATA_TTL, "1s")
            .property(WorkerKeys.METADATA_NEGATIVE_TTL, "1s")
            .start();
    try (FileSystem fs = fs()) {
      fs.mkdir("/appear", true);
      assertThat(fs.listStatus("/appear")).isEmpty();
      assertThat(fs.exists("/appear/new")).isFalse();
      Files.writeString(cluster.ufsRoot().resolve("appear/new"), "hello");
      await().atMost(Duration.ofSeconds(10)).until(() -> fs.exists("/appear/new"));
      await().atMost(Duration.ofSeconds(10)).until(() -> fs.listStatus("/appear").size() == 1);
      assertThat(List.of(fs.getStatus("/appear/new").length())).containsExactly(5L);
    }
  }
}
