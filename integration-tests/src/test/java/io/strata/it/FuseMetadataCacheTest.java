package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount answers look-ups of files it has seen from its own memory, for as long as the worker
 * would (its metadata TTL here: 10 minutes), and hears at once of what a worker drops. The client's
 * own TTL is also 10 minutes, so that nothing but the watch can make a change show within seconds.
 */
class FuseMetadataCacheTest {
  private static MiniCluster cluster;
  private static FuseProcess fuse;
  private static Path mnt;

  @BeforeAll
  static void mount(@TempDir Path dir) throws Exception {
    FuseHost.assumeMountable();
    cluster = MiniCluster.builder().property(WorkerKeys.METADATA_TTL, "10min").start();
    Files.createDirectories(cluster.ufsRoot().resolve("data/class0"));
    for (int i = 0; i < 20; i++) {
      Files.write(cluster.ufsRoot().resolve("data/class0/" + i + ".jpg"), new byte[1000 + i]);
    }
    Files.createDirectories(cluster.ufsRoot().resolve("data/typed/folder"));
    for (int i = 0; i < 30; i++) {
      Files.write(cluster.ufsRoot().resolve("data/typed/" + i + ".bin"), new byte[10]);
    }
    Configuration conf = cluster.clientConf();
    conf.set(UserKeys.METADATA_CACHE_TTL, "10min");
    // The kernel asks again after 0.2 s: each stat below past that reaches the mount.
    conf.set(FuseKeys.ATTR_TIMEOUT, "200ms");
    conf.set(FuseKeys.ENTRY_TIMEOUT, "200ms");
    mnt = Files.createDirectories(dir.resolve("mnt"));
    fuse = FuseHost.mount(conf, mnt, "/data");
  }

  @AfterAll
  static void stop() {
    if (fuse != null) {
      fuse.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static double workerLookUps() {
    return WorkerCounters.counter(
            cluster.worker(0), WorkerMetrics.METADATA_REQUESTS, "result", "hit")
        + WorkerCounters.counter(
            cluster.worker(0), WorkerMetrics.METADATA_REQUESTS, "result", "miss");
  }

  private static double kernelAsked(String op) throws Exception {
    return Scrape.value(
        fuse.webPort(), "strata_fuse_requests_seconds_count{op=\"" + op + "\",process=\"fuse\"}");
  }

  private static long size(String name) throws Exception {
    return Files.size(mnt.resolve("class0/" + name));
  }

  @Test
  void looksUpPastTheKernelsTimeout_areAnsweredInsideTheMount() throws Exception {
    try (var listing = Files.list(mnt.resolve("class0"))) {
      assertThat(listing.count()).isEqualTo(20);
    }
    double before = workerLookUps();
    for (int round = 0; round < 3; round++) {
      Thread.sleep(300); // past the kernel's 0.2 s: every stat below is a look-up in the mount
      for (int i = 10; i < 20; i++) { // (the other tests change files below 10)
        assertThat(size(i + ".jpg")).isEqualTo(1000 + i);
      }
    }
    assertThat(workerLookUps())
        .as("30 look-ups of files the listing told of reach no worker")
        .isEqualTo(before);
  }

  /**
   * A data set is indexed as torchvision's ImageFolder does it: scandir, then is_file / is_dir of
   * each entry, which read the entry's type off the listing. Without the type, each was a stat, a
   * look-up through the mount per file: 20,000 of them for the loader bench's index.
   */
  @Test
  void aListingTellsEachEntrysType_soTellingFilesFromFoldersStatsNothing() throws Exception {
    double before = kernelAsked("getattr");
    String types =
        FuseHost.python(
            "import os, sys",
            "with os.scandir('" + mnt.resolve("typed") + "') as d:",
            "    e = list(d)",
            "print(sum(x.is_file() for x in e), sum(x.is_dir() for x in e), len(e))");
    assertThat(types.strip()).isEqualTo("30 1 31");
    assertThat(kernelAsked("getattr") - before)
        .as("stats of 31 entries (the folder's own look-up aside)")
        .isLessThan(5);
  }

  @Test
  void aFileReplacedThroughAnotherClient_showsAtOnce() throws Exception {
    assertThat(size("5.jpg")).isEqualTo(1005);
    try (FileSystem other = FileSystem.create(cluster.clientConf());
        OutputStream out = other.create("/data/class0/5.jpg", WriteOptions.overwriting())) {
      out.write(new byte[7777]);
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(size("5.jpg")).isEqualTo(7777));
  }

  @Test
  void aChangeBehindStratasBack_showsOnFsInvalidate() throws Exception {
    assertThat(size("7.jpg")).isEqualTo(1007);
    Files.write(cluster.ufsRoot().resolve("data/class0/7.jpg"), new byte[4242]);
    Thread.sleep(300);
    assertThat(size("7.jpg"))
        .as("the worker's TTL has not ended: as the worker says")
        .isEqualTo(1007);
    try (FileSystem shell = FileSystem.create(cluster.clientConf())) {
      shell.invalidate("/data/class0/7.jpg", false);
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(size("7.jpg")).isEqualTo(4242));
  }
}
