package io.strata.worker.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicy;
import io.strata.worker.TestFiles;
import io.strata.worker.page.PageStore;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pins and TTLs over a real page store (SSD folder or memory only) and a local under-storage. */
class CachePoliciesTest {
  private static final int PAGE = 64 << 10;
  private static final int FILE = 16 * PAGE;

  @TempDir Path root;
  @TempDir Path cache;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicLong skewMs = new AtomicLong();
  private final AtomicInteger pinPercent = new AtomicInteger(50);
  private PageStore store;
  private UfsManager ufs;
  private PageFetcher fetcher;
  private CachePolicies policies;

  private void open(long memBytes, String... dirs) {
    store = TestFiles.pageStore(memBytes, registry, dirs);
    ufs = TestFiles.ufsAt(root);
    fetcher = new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    policies =
        new CachePolicies(
            ufs, store, fetcher, pinPercent::get, () -> System.currentTimeMillis() + skewMs.get());
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  /** Writes a file of {@link #FILE} bytes and reads every page of it through the cache. */
  private long cachedBytes(PageFetcher.Target t) {
    return fetcher.files().cachedBytes(t.key(), t.fileLength());
  }

  private PageFetcher.Target cache(String path) throws Exception {
    Path f = root.resolve(path.substring(1));
    if (!Files.exists(f)) {
      Files.createDirectories(f.getParent());
      byte[] bytes = new byte[FILE];
      new Random(path.hashCode()).nextBytes(bytes);
      Files.write(f, bytes);
    }
    UfsManager.Resolved file = ufs.resolve(StrataPath.of(path));
    PageFetcher.Target t =
        fetcher.target(file, file.ufs().getStatus(file.ufsPath()).fingerprint(), FILE);
    for (int i = 0; i < FILE / PAGE; i++) {
      fetcher.fetch(t, i).join().release();
    }
    return t;
  }

  private static PathPolicy pin(String path) {
    return PathPolicy.newBuilder().setPath(path).setPinned(true).build();
  }

  private static PathPolicy ttl(String path, long ms) {
    return PathPolicy.newBuilder().setPath(path).setTtlMs(ms).build();
  }

  @Test
  void aPinnedFile_staysOnDisk_whileTheCacheTurnsOverFourTimes() throws Exception {
    open(PAGE, cache.resolve("ssd") + ":4MiB");
    policies.update(List.of(pin("/keep")), 1);
    PageFetcher.Target kept = cache("/keep/a");
    PageFetcher.Target cold = cache("/drop/a");
    for (int i = 0; i < 16; i++) {
      cache("/stream/" + i);
    }
    assertThat(cachedBytes(kept)).as("pinned").isEqualTo(FILE);
    assertThat(cachedBytes(cold)).as("as old, not pinned").isZero();
    policies.check();
    assertThat(policies.usage().pinnedBytes()).isEqualTo(FILE);
    assertThat(policies.usage().capacityBytes()).isEqualTo(store.capacityBytes() / 2);

    policies.update(List.of(), 2);
    for (int i = 0; i < 16; i++) {
      cache("/stream/again/" + i);
    }
    assertThat(cachedBytes(kept)).as("unpinned, then cold").isZero();
  }

  @Test
  void everyPinnedFile_stays_thoughItsPagesShareSegmentsWithOthers() throws Exception {
    open(16 * PAGE, cache.resolve("ssd") + ":8MiB");
    policies.update(List.of(pin("/set")), 1);
    PageFetcher.Target a = cache("/set/a");
    PageFetcher.Target b = cache("/set/b");
    PageFetcher.Target cold = cache("/cold/a");
    policies.check();
    for (int i = 0; i < 32; i++) {
      cache("/stream/" + i);
    }
    assertThat(cachedBytes(a)).isEqualTo(FILE);
    assertThat(cachedBytes(b)).isEqualTo(FILE);
    assertThat(cachedBytes(cold)).isZero();
  }

  @Test
  void pinsBeyondThePinCapacity_areCachedButEvicted_andCounted() throws Exception {
    pinPercent.set(10);
    open(PAGE, cache.resolve("ssd") + ":4MiB");
    policies.update(List.of(pin("/keep")), 1);
    PageFetcher.Target kept = cache("/keep/a");
    policies.check();
    assertThat(policies.usage().pinnedBytes()).isZero();
    assertThat(policies.usage().overCapacityBytes()).isEqualTo(FILE);
    for (int i = 0; i < 16; i++) {
      cache("/stream/" + i);
    }
    assertThat(cachedBytes(kept)).isZero();
  }

  @Test
  void aPinnedFile_staysInMemory_whereMemoryIsTheWholeCache() throws Exception {
    open(4 * FILE);
    policies.update(List.of(pin("/keep/a")), 1);
    PageFetcher.Target kept = cache("/keep/a");
    PageFetcher.Target sibling = cache("/keep/b");
    for (int i = 0; i < 16; i++) {
      cache("/stream/" + i);
    }
    assertThat(cachedBytes(kept)).isEqualTo(FILE);
    assertThat(cachedBytes(sibling)).as("a pin on one file only").isZero();
  }

  @Test
  void aTtl_freesFilesCachedLongerAgo_theNearestTtlAboveAFileApplying() throws Exception {
    open(PAGE, cache.resolve("ssd") + ":8MiB");
    policies.update(List.of(ttl("/tmp", 60_000), ttl("/tmp/long", 3_600_000)), 1);
    PageFetcher.Target shortLived = cache("/tmp/a");
    PageFetcher.Target longLived = cache("/tmp/long/b");
    PageFetcher.Target elsewhere = cache("/data/c");
    policies.check();
    assertThat(cachedBytes(shortLived)).as("not yet").isEqualTo(FILE);

    skewMs.set(61_000);
    policies.check();
    assertThat(cachedBytes(shortLived)).isZero();
    assertThat(cachedBytes(longLived)).isEqualTo(FILE);
    assertThat(cachedBytes(elsewhere)).isEqualTo(FILE);
    assertThat(Files.exists(root.resolve("tmp/a"))).as("freed, never deleted").isTrue();

    assertThat(store.versions().under(shortLived.file().ufsUri()))
        .as("forgotten: cached again, its time starts again")
        .isEmpty();
  }
}
