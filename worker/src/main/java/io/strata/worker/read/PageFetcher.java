package io.strata.worker.read;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StrataException;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.DiskPage;
import io.strata.worker.page.FilePages;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.page.ShmArena;
import io.strata.worker.ufs.UfsManager.Resolved;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Gets pages: from memory at once when cached there; as a place in a segment file when on SSD and
 * verified before (the event loop then sends it by sendfile); else, on the I/O executor (never on a
 * network thread), from SSD (checksum verified, promoted) or from the UFS, page-aligned, admitting
 * what it read. Concurrent requests of one page that is not in memory share one disk or UFS read:
 * the first caller starts a {@link PageLoad}, later callers subscribe to it. Files read in order
 * have their next pages asked of the UFS ahead of the reader, a run of them per request ({@link
 * ReadAhead}).
 *
 * <p>Every page handed out carries a reference of its own that the caller must release. The loader
 * keeps its reference until every subscriber has taken theirs, so no page is freed while a
 * subscriber is still about to retain it.
 */
public final class PageFetcher {
  /** Where a page came from. */
  public enum Source {
    MEM,
    SSD,
    UFS
  }

  /**
   * A page and where it came from: its bytes in memory, or (from SSD, its checksum verified by an
   * earlier read) its place in a segment file, sent without a copy.
   */
  public record Fetched(ByteBuf page, DiskPage disk, Source source) {
    Fetched(ByteBuf page, Source source) {
      this(page, null, source);
    }

    public int length() {
      return page != null ? page.readableBytes() : disk.length();
    }

    /**
     * Below this, a range of a page on SSD is copied rather than sent by sendfile: a few KiB cost
     * less to copy than a separate system call and TCP segment between the frame header and the
     * end.
     */
    static final int SENDFILE_MIN_BYTES = 64 << 10;

    /**
     * Bytes {@code [from, from + count)} to write to a channel, holding a reference of their own;
     * {@code byFile}: a memory page in shared memory goes as a file region too (sendfile).
     */
    public Object slice(ByteBufAllocator allocator, int from, int count, boolean byFile)
        throws IOException {
      if (page != null) {
        return byFile && count >= SENDFILE_MIN_BYTES && ShmArena.holds(page)
            ? ShmArena.region(page, from, count)
            : page.retainedSlice(from, count);
      }
      return count < SENDFILE_MIN_BYTES
          ? disk.copy(allocator, from, count)
          : disk.region(from, count);
    }

    public void release() {
      if (page != null) {
        page.release();
      } else {
        disk.release();
      }
    }
  }

  /** The version of a file being read: where it lives and how long it is. */
  public record Target(Resolved file, String fingerprint, long fileLength, PageId.FileKey key) {}

  private final PageStore store;
  private final long pageSize;
  private final FilePages files;
  private final Executor ufsExecutor;
  private final UfsPageReads ufsReads;
  private final Map<PageId, PageLoad> inflight = new ConcurrentHashMap<>();
  private final Set<PageId> settling = ConcurrentHashMap.newKeySet();
  private final Counter hits;
  private final Counter misses;
  private final ReadAhead readAhead;
  private final InOrderRuns<PageId, Run> inOrder;

  /** Told of a file found changed in the UFS while being read (to drop its cached status). */
  public void whenFileChanges(Consumer<StrataPath> listener) {
    ufsReads.whenFileChanges(listener);
  }

  /** A fetcher without read-ahead: the UFS is asked for exactly the pages missed. */
  public PageFetcher(
      PageStore store,
      long pageSize,
      Executor ufsExecutor,
      ByteBufAllocator allocator,
      MeterRegistry registry) {
    this(store, pageSize, ufsExecutor, allocator, registry, () -> 0, () -> 0);
  }

  /**
   * {@code readAheadBytes}: how far ahead of a reader that reads a file in order to read it from
   * the UFS (strata.worker.ufs.read.ahead; below two pages, no read-ahead); {@code runBytes}: the
   * most asked of the UFS in one request (strata.worker.ufs.read.run).
   */
  public PageFetcher(
      PageStore store,
      long pageSize,
      Executor ufsExecutor,
      ByteBufAllocator allocator,
      MeterRegistry registry,
      LongSupplier readAheadBytes,
      LongSupplier runBytes) {
    this.store = store;
    this.pageSize = pageSize;
    this.files = new FilePages(store, pageSize);
    this.ufsExecutor = ufsExecutor;
    this.hits =
        Counter.builder(WorkerMetrics.PAGE_REQUESTS)
            .tag("result", "hit")
            .description("Page look-ups, by whether the cache held the page")
            .register(registry);
    this.misses =
        Counter.builder(WorkerMetrics.PAGE_REQUESTS)
            .tag("result", "miss")
            .description("Page look-ups, by whether the cache held the page")
            .register(registry);
    this.ufsReads = new UfsPageReads(pageSize, allocator, registry);
    this.inOrder =
        new InOrderRuns<>(ufsExecutor, this::read, (run, e) -> finish(run, new ByteBuf[0], e));
    this.readAhead =
        new ReadAhead(
            readAheadBytes,
            runBytes,
            pageSize,
            new ReadAhead.Runs() {
              @Override
              public void start(Target target, long from, long to) {
                startRun(target, from, to);
              }

              @Override
              public boolean cachedOrComing(PageId id) {
                return inflight.containsKey(id) || store.contains(id);
              }
            });
    Gauge.builder(WorkerMetrics.CACHE_HIT_RATIO, this, PageFetcher::hitRatio)
        .description("Share of page look-ups the cache answered")
        .register(registry);
  }

  public long pageSize() {
    return pageSize;
  }

  /** Version {@code fingerprint} of {@code file}, as this fetcher's pages cut it. */
  public Target target(Resolved file, String fingerprint, long fileLength) {
    return new Target(
        file, fingerprint, fileLength, PageId.FileKey.of(file.ufsUri(), fingerprint, pageSize));
  }

  public CompletableFuture<Fetched> fetch(Target target, long index) {
    PageId id = target.key().page(index);
    while (true) {
      ByteBuf cached = store.getFromMemory(id);
      if (cached != null) {
        hits.increment();
        readAhead.asked(target, index, false);
        if (store.settleDue(id, cached)) {
          settleLater(id);
        }
        return CompletableFuture.completedFuture(new Fetched(cached, Source.MEM));
      }
      DiskPage onDisk = store.diskPage(id);
      if (onDisk != null) {
        hits.increment();
        readAhead.asked(target, index, false);
        return CompletableFuture.completedFuture(new Fetched(null, onDisk, Source.SSD));
      }
      PageLoad load = inflight.computeIfAbsent(id, k -> new PageLoad());
      // Subscribe before starting the load, so that its starter always sees its outcome.
      CompletableFuture<Fetched> subscription = load.subscribe();
      if (subscription != null) {
        if (load.claim()) {
          start(target, index, id, load);
        } else if (load.takeMiss()) {
          misses.increment();
        }
        readAhead.asked(target, index, true);
        return subscription;
      }
      // That load finished between our look-ups; its page is in the store now, or look again.
    }
  }

  /** Moves a page into shared memory on the I/O executor, once however many readers ask. */
  private void settleLater(PageId id) {
    if (!settling.add(id)) {
      return;
    }
    try {
      ufsExecutor.execute(
          () -> {
            try {
              store.settle(id);
            } finally {
              settling.remove(id);
            }
          });
    } catch (RejectedExecutionException stopping) {
      settling.remove(id);
    }
  }

  /**
   * Where page {@code index} lies on SSD, pinned there until {@code untilNanos} if {@code allowed}
   * lets its segment be pinned; empty if not on SSD or not allowed.
   */
  public java.util.Optional<io.strata.worker.page.SsdTier.Pinned> pinOnDisk(
      Target target,
      long index,
      long untilNanos,
      java.util.function.Predicate<java.nio.file.Path> allowed) {
    return store.pinOnDisk(target.key().page(index), untilNanos, allowed);
  }

  /** What the store holds of whole file versions, as this fetcher's pages cut them. */
  public FilePages files() {
    return files;
  }

  private void start(Target target, long index, PageId id, PageLoad load) {
    try {
      ufsExecutor.execute(() -> runLoad(target, index, id, load));
    } catch (RejectedExecutionException e) {
      inflight.remove(id, load);
      load.finish(null, Source.UFS, StrataException.unavailable("the worker is stopping", e));
    }
  }

  private void runLoad(Target target, long index, PageId id, PageLoad load) {
    ByteBuf page = null;
    Source source = Source.SSD;
    Throwable error = null;
    try {
      // A load that ended between the caller's look-up and this one's start put the page there.
      page = store.getFromMemory(id);
      if (page != null) {
        source = Source.MEM;
      } else {
        page = store.readFromDisk(id);
      }
      if (page != null) {
        hits.increment();
      } else {
        misses.increment();
        source = Source.UFS;
        ByteBuf[] read = ufsReads.read(target, index, 1);
        if (read.length == 0) {
          throw pastTheEnd(target, index);
        }
        page = read[0];
        admit(target, id, page);
      }
    } catch (Throwable t) {
      error = t;
    }
    inflight.remove(id, load);
    load.finish(page, source, error);
    if (page != null) {
      page.release();
    }
  }

  /**
   * Asks the UFS, in one request, for the pages of {@code [from, to)} from the first that is
   * neither cached nor on its way to the next that is: each becomes a load that readers who come
   * meanwhile wait for, and the cache keeps.
   */
  private void startRun(Target target, long from, long to) {
    List<PageLoad> loads = new ArrayList<>();
    long first = -1;
    for (long i = from; i < to; i++) {
      PageId id = target.key().page(i);
      PageLoad load = PageLoad.readAhead();
      boolean taken = !store.contains(id) && inflight.putIfAbsent(id, load) == null;
      // Looked for again once claimed: a load admits its page before it lets go of its claim.
      if (taken && store.contains(id)) {
        // Cached meanwhile; a request may already wait for this load: it serves them from there.
        load.takeMiss();
        start(target, i, id, load);
        taken = false;
      }
      if (!taken) {
        if (loads.isEmpty()) {
          continue;
        }
        break;
      }
      if (loads.isEmpty()) {
        first = i;
      }
      loads.add(load);
    }
    if (loads.isEmpty()) {
      return;
    }
    Run run = new Run(target, first, loads);
    if (target.file().ufs().continuesRuns()) {
      inOrder.submit(target.key().page(first), target.key().page(first + loads.size()), run);
      return;
    }
    try {
      ufsExecutor.execute(() -> read(run));
    } catch (RejectedExecutionException e) {
      finish(run, new ByteBuf[0], e);
    }
  }

  /** Consecutive pages of a file asked of the UFS in one request, each a load readers wait for. */
  private record Run(Target target, long first, List<PageLoad> loads) {}

  private void read(Run run) {
    ByteBuf[] pages = new ByteBuf[0];
    Throwable error = null;
    try {
      pages = ufsReads.read(run.target(), run.first(), run.loads().size());
      for (int k = 0; k < pages.length; k++) {
        admit(run.target(), run.target().key().page(run.first() + k), pages[k]);
      }
    } catch (Throwable t) {
      error = t;
    }
    finish(run, pages, error);
  }

  /** Hands each load of a run its page, or the run's error (past the file's end: that one). */
  private void finish(Run run, ByteBuf[] pages, Throwable error) {
    Target target = run.target();
    long first = run.first();
    List<PageLoad> loads = run.loads();
    for (int k = 0; k < loads.size(); k++) {
      ByteBuf page = k < pages.length ? pages[k] : null;
      inflight.remove(target.key().page(first + k), loads.get(k));
      Throwable why = error;
      if (why == null && page == null) {
        why = pastTheEnd(target, first + k);
      }
      loads.get(k).finish(page, Source.UFS, why);
      if (page != null) {
        page.release();
      }
    }
  }

  private void admit(Target target, PageId id, ByteBuf page) {
    store.versions().note(target.file().ufsUri(), target.fingerprint(), target.fileLength());
    store.admit(id, page, false);
  }

  private static StrataException pastTheEnd(Target target, long index) {
    return StrataException.invalidArgument(
        "page " + index + " is past the end of " + target.file().path());
  }

  private double hitRatio() {
    double h = hits.count();
    double total = h + misses.count();
    return total == 0 ? 0 : h / total;
  }
}
