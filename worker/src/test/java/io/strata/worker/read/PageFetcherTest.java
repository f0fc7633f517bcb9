package io.strata.worker.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.worker.TestFiles;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageFetcherTest {
  private static final int PAGE = 4096;

  @TempDir Path root;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Queue<Runnable> held = new ArrayDeque<>();

  /** Holds UFS reads until the test runs them, so concurrency is under the test's control. */
  private final Executor heldExecutor = held::add;

  private PageStore store;
  private UfsManager ufs;
  private byte[] data;

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * 3 + 100];
    new Random(1).nextBytes(data);
    Files.write(root.resolve("f"), data);
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private PageFetcher.Target target() {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    String fp = file.ufs().getStatus(file.ufsPath()).fingerprint();
    return new PageFetcher.Target(
        file, fp, data.length, PageId.FileKey.of(file.ufsUri(), fp, PAGE));
  }

  private double ufsReads() {
    return registry.get(WorkerMetrics.UFS_PAGE_READS).counter().count();
  }

  /** Issue 54, item 6: a READ's claimed length became the version's, walked page by page. */
  @Test
  void aClaimedLength_thatIsNotTheFilesOwn_isRefused_andNothingIsNoted() {
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Target real = target();
    PageFetcher.Target claimed =
        new PageFetcher.Target(real.file(), real.fingerprint(), 1L << 60, real.key());
    assertThatThrownBy(() -> fetcher.fetch(claimed, 0).join())
        .hasRootCauseInstanceOf(StrataException.class)
        .hasMessageContaining("the read names 1152921504606846976 bytes of /f");
    assertThat(store.versions().under(real.file().ufsUri())).isEmpty();
    assertThat(store.contains(real.key().page(0))).isFalse();
  }

  /** Issue 54, item 5: keys must not collide for a client's chosen fingerprint. */
  @Test
  void fileKeys_hashEveryFieldWhole() {
    PageId.FileKey a = PageId.FileKey.of("file:///a", "b\0c", PAGE);
    assertThat(PageId.FileKey.of("file:///a\0b", "c", PAGE)).isNotEqualTo(a);
    assertThat(PageId.FileKey.of("file:///a", "b\0c", PAGE * 2)).isNotEqualTo(a);
    assertThat(PageId.FileKey.of("file:///a", "b\0c", PAGE)).isEqualTo(a);
  }

  @Test
  void concurrentMissesOfOnePage_shareOneUfsRead() {
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, heldExecutor, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Target t = target();
    List<CompletableFuture<PageFetcher.Fetched>> waiters = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      waiters.add(fetcher.fetch(t, 1));
    }
    assertThat(held).hasSize(1);
    held.poll().run();
    for (CompletableFuture<PageFetcher.Fetched> w : waiters) {
      PageFetcher.Fetched f = w.join();
      assertThat(f.source()).isEqualTo(PageFetcher.Source.UFS);
      assertThat(ByteBufUtil.getBytes(f.page()))
          .isEqualTo(java.util.Arrays.copyOfRange(data, PAGE, 2 * PAGE));
      f.page().release();
    }
    assertThat(ufsReads()).isEqualTo(1);
    PageFetcher.Fetched again = fetcher.fetch(t, 1).join();
    assertThat(again.source()).isEqualTo(PageFetcher.Source.MEM);
    again.page().release();
    assertThat(ufsReads()).isEqualTo(1);
  }

  @Test
  void manyThreads_manyPages_readEachPageOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    ExecutorService callers = Executors.newFixedThreadPool(8);
    try {
      PageFetcher fetcher =
          new PageFetcher(store, PAGE, pool, PooledByteBufAllocator.DEFAULT, registry);
      PageFetcher.Target t = target();
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        done.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int round = 0; round < 20; round++) {
                    for (int p = 0; p < 4; p++) {
                      PageFetcher.Fetched f = fetcher.fetch(t, p).join();
                      assertThat(f.page().getByte(0)).isEqualTo(data[p * PAGE]);
                      f.page().release();
                    }
                  }
                },
                callers));
      }
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
      assertThat(ufsReads()).isEqualTo(4);
      assertThat(fetcher.files().cachedBytes(t.key(), t.fileLength())).isEqualTo(data.length);
    } finally {
      pool.shutdownNow();
      callers.shutdownNow();
    }
  }

  @Test
  void anotherPageSize_overTheSameCache_neverFindsThePagesOfTheFirst() {
    PageFetcher small =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    small.fetch(small.target(file(), fingerprint(), data.length), 0).join().release();
    // A worker restarted with pages twice as large, over the same store.
    PageFetcher large =
        new PageFetcher(store, 2 * PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Fetched f = large.fetch(large.target(file(), fingerprint(), data.length), 0).join();
    try {
      assertThat(f.source()).isEqualTo(PageFetcher.Source.UFS);
      assertThat(ByteBufUtil.getBytes(f.page())).isEqualTo(Arrays.copyOf(data, 2 * PAGE));
    } finally {
      f.release();
    }
  }

  private UfsManager.Resolved file() {
    return ufs.resolve(StrataPath.of("/f"));
  }

  private String fingerprint() {
    UfsManager.Resolved file = file();
    return file.ufs().getStatus(file.ufsPath()).fingerprint();
  }

  @Test
  void fileChangedAfterItsStatus_isRefused_notMixed() throws Exception {
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Target t = target();
    Path f = root.resolve("f");
    FileTime before = Files.getLastModifiedTime(f);
    Files.write(f, new byte[data.length]);
    // Same length: only the time tells the versions apart, whatever the clock's resolution.
    Files.setLastModifiedTime(f, FileTime.fromMillis(before.toMillis() + 1000));
    assertThatThrownBy(() -> fetcher.fetch(t, 0).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION));
    assertThat(store.pageCount()).isZero();
  }

  @Test
  void pagesOnSsd_areServedFromDisk_andPromoted() throws Exception {
    store.close();
    store = TestFiles.pageStore(2 * PAGE, registry, root.resolve("ssd") + ":64MiB");
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Target t = target();
    for (int p = 0; p < 4; p++) {
      fetcher.fetch(t, p).join().page().release();
    }
    PageFetcher.Fetched first = fetcher.fetch(t, 0).join();
    assertThat(first.source())
        .as("memory holds two pages; page 0 was pushed to SSD only")
        .isEqualTo(PageFetcher.Source.SSD);
    assertThat(first.page().getByte(0)).isEqualTo(data[0]);
    first.page().release();
    PageFetcher.Fetched again = fetcher.fetch(t, 0).join();
    assertThat(again.source()).as("promoted").isEqualTo(PageFetcher.Source.MEM);
    again.page().release();
    assertThat(ufsReads()).isEqualTo(4);
    assertThat(
            registry
                .get(io.strata.worker.WorkerMetrics.DEMOTIONS)
                .tag("tier", "MEM")
                .counter()
                .count())
        .isPositive();
  }

  @Test
  void verifiedPagesOnSsd_withoutAMemoryTier_areSentFromTheirFile() throws Exception {
    store.close();
    store = TestFiles.pageStore(0, registry, root.resolve("ssd") + ":64MiB");
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Target t = target();
    byte[] page1 = Arrays.copyOfRange(data, PAGE, 2 * PAGE);
    PageFetcher.Fetched fromUfs = fetcher.fetch(t, 1).join();
    assertThat(fromUfs.source()).isEqualTo(PageFetcher.Source.UFS);
    fromUfs.release();
    PageFetcher.Fetched verifying = fetcher.fetch(t, 1).join();
    assertThat(verifying.source()).isEqualTo(PageFetcher.Source.SSD);
    assertThat(verifying.page())
        .as("the first read from SSD checks the page's checksum in memory")
        .isNotNull();
    verifying.release();

    PageFetcher.Fetched sent = fetcher.fetch(t, 1).join();
    assertThat(sent.source()).isEqualTo(PageFetcher.Source.SSD);
    assertThat(sent.disk()).as("verified: sent from the segment file").isNotNull();
    assertThat(sent.length()).isEqualTo(PAGE);
    ByteBuf copied = (ByteBuf) sent.slice(PooledByteBufAllocator.DEFAULT, 100, 1000, true);
    assertThat(ByteBufUtil.getBytes(copied)).isEqualTo(Arrays.copyOfRange(page1, 100, 1100));
    copied.release();
    FileRegion region = sent.disk().region(10, PAGE - 10);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WritableByteChannel sink = Channels.newChannel(out);
    while (region.transferred() < region.count()) {
      region.transferTo(sink, region.transferred());
    }
    region.release();
    sent.release();
    assertThat(out.toByteArray()).isEqualTo(Arrays.copyOfRange(page1, 10, PAGE));
    assertThat(ufsReads()).isEqualTo(1);
  }
}
