package io.strata.worker.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.worker.TestFiles;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's read-ahead over a real local under-storage and page store. */
class ReadAheadTest {
  private static final int PAGE = 4096;
  private static final int PAGES = 16;
  private static final long RUN = 4 * PAGE;

  @TempDir Path root;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private PageStore store;
  private UfsManager ufs;
  private byte[] data;

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * (PAGES - 1) + 123];
    new Random(3).nextBytes(data);
    Files.write(root.resolve("f"), data);
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private PageFetcher fetcher(java.util.concurrent.Executor executor) {
    return new PageFetcher(
        store, PAGE, executor, PooledByteBufAllocator.DEFAULT, registry, () -> RUN, () -> RUN);
  }

  @Test
  void aWindowOfSeveralRuns_hasThemAllInFlightAtOnce() {
    List<Runnable> held = new ArrayList<>();
    PageFetcher fetcher =
        new PageFetcher(
            store,
            PAGE,
            held::add,
            PooledByteBufAllocator.DEFAULT,
            registry,
            () -> 8L * PAGE,
            () -> 2L * PAGE);
    PageFetcher.Target t = target(data.length);
    CompletableFuture<PageFetcher.Fetched> first = fetcher.fetch(t, 0);
    assertThat(held).as("page 0, then runs 1-2, 3-4, 5-6 and 7-8").hasSize(5);
    List<CompletableFuture<PageFetcher.Fetched>> waiting =
        List.of(fetcher.fetch(t, 1), fetcher.fetch(t, 1), fetcher.fetch(t, 2));
    assertThat(held).as("and run 9-10, the reader at page 2").hasSize(6);
    held.forEach(Runnable::run);
    first.join().release();
    waiting.forEach(w -> w.join().release());
    assertThat(requests("miss"))
        .as("page 0; a page read ahead is a miss once, for the first request that waits for it")
        .isEqualTo(3);
    for (int i = 0; i < 9; i++) {
      expectPage(fetcher, t, i);
    }
    assertThat(count(WorkerMetrics.UFS_READS)).isEqualTo(6);
    assertThat(count(WorkerMetrics.UFS_PAGE_READS)).isEqualTo(11);
  }

  private PageFetcher.Target target(long claimedLength) {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    String fp = file.ufs().getStatus(file.ufsPath()).fingerprint();
    return new PageFetcher.Target(
        file, fp, claimedLength, io.strata.worker.page.PageId.FileKey.of(file.ufsUri(), fp, PAGE));
  }

  private double requests(String result) {
    return registry.get(WorkerMetrics.PAGE_REQUESTS).tag("result", result).counter().count();
  }

  private double count(String meter) {
    return registry.get(meter).counter().count();
  }

  private void expectPage(PageFetcher fetcher, PageFetcher.Target t, int index) {
    PageFetcher.Fetched f = fetcher.fetch(t, index).join();
    try {
      int from = index * PAGE;
      assertThat(ByteBufUtil.getBytes(f.page()))
          .as("page %d", index)
          .isEqualTo(Arrays.copyOfRange(data, from, Math.min(data.length, from + PAGE)));
    } finally {
      f.release();
    }
  }

  @Test
  void aReaderInOrder_costsTheStoreOneRequestPerRun_andEachPageIsReadOnce() {
    PageFetcher fetcher = fetcher(Runnable::run);
    PageFetcher.Target t = target(data.length);
    for (int i = 0; i < PAGES; i++) {
      expectPage(fetcher, t, i);
    }
    assertThat(count(WorkerMetrics.UFS_PAGE_READS)).isEqualTo(PAGES);
    assertThat(requests("miss")).isEqualTo(1);
    assertThat(requests("hit")).as("read ahead before they were asked for").isEqualTo(PAGES - 1);
    // Page 0 alone, then runs of 4 (1-4, 5-8, 9-12, 13-15).
    assertThat(count(WorkerMetrics.UFS_READS)).isEqualTo(5);
    assertThat(count(WorkerMetrics.UFS_BYTES_READ)).isEqualTo(data.length);
  }

  @Test
  void readersInOrder_onManyThreads_getTheRightBytes_andReadEachPageOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    ExecutorService readers = Executors.newFixedThreadPool(3);
    try {
      PageFetcher fetcher = fetcher(pool);
      PageFetcher.Target t = target(data.length);
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        done.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 0; i < PAGES; i++) {
                    expectPage(fetcher, t, i);
                  }
                },
                readers));
      }
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
      assertThat(count(WorkerMetrics.UFS_PAGE_READS)).isEqualTo(PAGES);
      assertThat(count(WorkerMetrics.UFS_READS)).isLessThan(PAGES);
    } finally {
      pool.shutdownNow();
      readers.shutdownNow();
    }
  }

  @Test
  void aRandomReader_readsOnlyThePagesItAsksFor() {
    PageFetcher fetcher = fetcher(Runnable::run);
    PageFetcher.Target t = target(data.length);
    for (int i : new int[] {9, 3, 13, 6, 11}) {
      expectPage(fetcher, t, i);
    }
    assertThat(count(WorkerMetrics.UFS_PAGE_READS)).isEqualTo(5);
    assertThat(count(WorkerMetrics.UFS_READS)).isEqualTo(5);
  }

  @Test
  void aLengthClaimedPastTheFile_isRefused_andCachesNothing() {
    PageFetcher fetcher = fetcher(Runnable::run);
    PageFetcher.Target t = target(data.length + 8L * PAGE);
    assertThatThrownBy(() -> fetcher.fetch(t, 0).join())
        .cause()
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT));
    for (int i = 0; i < PAGES + 8; i++) {
      assertThat(store.contains(t.key().page(i))).as("page %d", i).isFalse();
    }
  }

  @Test
  void aFileReplacedWhilePagesAreReadAhead_cachesNoneOfTheNewBytesUnderTheOldVersion()
      throws Exception {
    List<Runnable> held = new ArrayList<>();
    PageFetcher fetcher = fetcher(held::add);
    PageFetcher.Target t = target(data.length);
    CompletableFuture<PageFetcher.Fetched> first = fetcher.fetch(t, 0);
    assertThat(held).as("page 0, and the run of pages 1-4 ahead of it").hasSize(2);
    Path f = root.resolve("f");
    FileTime before = Files.getLastModifiedTime(f);
    byte[] replaced = new byte[data.length];
    Files.write(f, replaced);
    Files.setLastModifiedTime(f, FileTime.fromMillis(before.toMillis() + 1000));
    CompletableFuture<PageFetcher.Fetched> ahead = fetcher.fetch(t, 2);
    held.forEach(Runnable::run);
    for (CompletableFuture<PageFetcher.Fetched> page : List.of(first, ahead)) {
      assertThatThrownBy(page::join)
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION));
    }
    assertThat(store.pageCount()).isZero();
  }
}
