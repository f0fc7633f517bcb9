package io.strata.worker.read;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.DiskPage;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager.Resolved;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Gets pages: from memory at once when cached there; as a place in a segment file when on SSD and
 * verified before (the event loop then sends it by sendfile); else, on the I/O executor (never on a
 * network thread), from SSD (checksum verified, promoted) or from the UFS, page-aligned, admitting
 * what it read. Concurrent requests of one page that is not in memory share one disk or UFS read:
 * the first caller starts a {@link Load}, later callers subscribe to it.
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
     * Bytes {@code [from, from + count)} to write to a channel, holding a reference of their own.
     */
    public Object slice(ByteBufAllocator allocator, int from, int count) throws IOException {
      if (page != null) {
        return page.retainedSlice(from, count);
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
  private volatile Consumer<StrataPath> fileChanged = path -> {};
  private final Executor ufsExecutor;
  private final ByteBufAllocator allocator;
  private final Map<PageId, Load> inflight = new ConcurrentHashMap<>();
  private final Counter hits;
  private final Counter misses;
  private final Counter ufsPageReads;
  private final Counter ufsBytes;

  /** Told of a file found changed in the UFS while being read (to drop its cached status). */
  public void whenFileChanges(Consumer<StrataPath> listener) {
    this.fileChanged = listener;
  }

  public PageFetcher(
      PageStore store,
      long pageSize,
      Executor ufsExecutor,
      ByteBufAllocator allocator,
      MeterRegistry registry) {
    this.store = store;
    this.pageSize = pageSize;
    this.ufsExecutor = ufsExecutor;
    this.allocator = allocator;
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
    this.ufsPageReads =
        Counter.builder(WorkerMetrics.UFS_PAGE_READS)
            .description("Pages read from the under-storage (a coalesced miss counts once)")
            .register(registry);
    this.ufsBytes =
        Counter.builder(WorkerMetrics.UFS_BYTES_READ)
            .description("Bytes read from the under-storage")
            .register(registry);
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
        return CompletableFuture.completedFuture(new Fetched(cached, Source.MEM));
      }
      DiskPage onDisk = store.diskPage(id);
      if (onDisk != null) {
        hits.increment();
        return CompletableFuture.completedFuture(new Fetched(null, onDisk, Source.SSD));
      }
      Load load = inflight.computeIfAbsent(id, k -> new Load());
      // Subscribe before starting the load, so that its starter always sees its outcome.
      CompletableFuture<Fetched> subscription = load.subscribe();
      if (subscription != null) {
        if (load.claim()) {
          start(target, index, id, load);
        }
        return subscription;
      }
      // That load finished between our look-ups; its page is in the store now, or look again.
    }
  }

  /**
   * Where page {@code index} lies on SSD, pinned there until {@code untilNanos}; empty if not on
   * SSD.
   */
  public java.util.Optional<io.strata.worker.page.SsdTier.Pinned> pinOnDisk(
      Target target, long index, long untilNanos) {
    return store.pinOnDisk(target.key().page(index), untilNanos);
  }

  /** Bytes of this file version held in the store. */
  public long cachedBytes(Target target) {
    long pages = (target.fileLength() + pageSize - 1) / pageSize;
    long bytes = 0;
    for (long i = 0; i < pages; i++) {
      if (store.contains(target.key().page(i))) {
        bytes += Math.min(pageSize, target.fileLength() - i * pageSize);
      }
    }
    return bytes;
  }

  /** Drops every cached page of this file version; returns the bytes dropped. */
  public long free(Target target) {
    return free(target.key(), target.fileLength());
  }

  /** Drops the cached pages of the version {@code fingerprint} of the file at {@code ufsUri}. */
  public long free(String ufsUri, String fingerprint, long fileLength) {
    return free(PageId.FileKey.of(ufsUri, fingerprint, pageSize), fileLength);
  }

  private long free(PageId.FileKey key, long fileLength) {
    long pages = (fileLength + pageSize - 1) / pageSize;
    long bytes = 0;
    for (long i = 0; i < pages; i++) {
      PageId id = key.page(i);
      if (store.contains(id)) {
        store.remove(id);
        bytes += Math.min(pageSize, fileLength - i * pageSize);
      }
    }
    return bytes;
  }

  private void start(Target target, long index, PageId id, Load load) {
    try {
      ufsExecutor.execute(() -> runLoad(target, index, id, load));
    } catch (RejectedExecutionException e) {
      inflight.remove(id, load);
      load.finish(null, Source.UFS, StrataException.unavailable("the worker is stopping", e));
    }
  }

  private void runLoad(Target target, long index, PageId id, Load load) {
    ByteBuf page = null;
    Source source = Source.SSD;
    Throwable error = null;
    try {
      page = store.readFromDisk(id);
      if (page != null) {
        hits.increment();
      } else {
        misses.increment();
        source = Source.UFS;
        page = readFromUfs(target, index);
        store.versions().note(target.file().ufsUri(), target.fingerprint(), target.fileLength());
        store.admit(id, page, false);
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
   * Page {@code index} as the under-storage has it: its length comes from the file the reader
   * opened, never from the request (a client's shorter length must not cache a short page), and the
   * fingerprint read afterwards proves those bytes are the version asked for.
   */
  private ByteBuf readFromUfs(Target target, long index) throws IOException {
    long offset = index * pageSize;
    try (UfsReader reader =
        target.file().ufs().openVersion(target.file().ufsPath(), target.fingerprint())) {
      int length = (int) Math.min(pageSize, reader.length() - offset);
      if (length <= 0) {
        checkVersion(target, reader);
        throw StrataException.invalidArgument(
            "page " + index + " is past the end of " + target.file().path());
      }
      ByteBuf page = allocator.directBuffer(length, length);
      try {
        int n = reader.readFully(offset, page.nioBuffer(0, length));
        page.writerIndex(n);
        checkVersion(target, reader);
        if (n != length) {
          throw StrataException.internal(
              "short read of " + target.file().path() + " at " + offset, null);
        }
        ufsPageReads.increment();
        ufsBytes.increment(n);
        return page;
      } catch (IOException | RuntimeException e) {
        page.release();
        throw e;
      }
    }
  }

  /** Fails when the file is no longer the version the request names. */
  private void checkVersion(Target target, UfsReader reader) throws IOException {
    if (!reader.currentFingerprint().equals(target.fingerprint())) {
      // The status the reader opened with is stale: the next open must see the new version.
      fileChanged.accept(target.file().path());
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          target.file().path() + " changed in the under-storage while being read; open it again");
    }
  }

  private double hitRatio() {
    double h = hits.count();
    double total = h + misses.count();
    return total == 0 ? 0 : h / total;
  }

  /** One UFS read of one page and the callers waiting for it. */
  private static final class Load {
    private final List<CompletableFuture<Fetched>> waiters = new ArrayList<>();
    private boolean claimed;
    private boolean finished;

    synchronized boolean claim() {
      if (claimed) {
        return false;
      }
      claimed = true;
      return true;
    }

    /** A future for the page, or null if the load already finished. */
    synchronized CompletableFuture<Fetched> subscribe() {
      if (finished) {
        return null;
      }
      CompletableFuture<Fetched> f = new CompletableFuture<>();
      waiters.add(f);
      return f;
    }

    void finish(ByteBuf page, Source source, Throwable error) {
      List<CompletableFuture<Fetched>> toComplete;
      synchronized (this) {
        finished = true;
        toComplete = List.copyOf(waiters);
      }
      for (CompletableFuture<Fetched> w : toComplete) {
        if (error != null) {
          w.completeExceptionally(error);
        } else {
          ByteBuf mine = page.retainedDuplicate();
          if (!w.complete(new Fetched(mine, source))) {
            mine.release();
          }
        }
      }
    }
  }
}
