package io.strata.worker.read;

import com.github.benmanes.caffeine.cache.Cache;
import io.strata.core.util.Caches;
import io.strata.worker.page.PageId;
import io.strata.worker.read.PageFetcher.Target;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The worker's read-ahead for files read in order from the UFS. A page missed while the page before
 * it is cached or on its way opens a window; from then on, whenever less than the window lies
 * between the reader and the end of what was asked of the UFS, the next run of pages is asked, in
 * one request. So a cold sequential reader has a window's worth of pages on their way ahead of it,
 * several runs in flight at once, and costs the store one request per run, not per page. Random
 * readers open no window and read only what they ask for.
 */
final class ReadAhead {
  /** Starts the UFS read of pages {@code [from, to)} of a version, skipping those already there. */
  interface Runs {
    void start(Target target, long from, long to);

    boolean cachedOrComing(PageId id);
  }

  /** The first page of a version not yet asked of the UFS by its read-ahead. */
  private static final class Window {
    long next;

    Window(long next) {
      this.next = next;
    }
  }

  private final LongSupplier windowBytes;
  private final LongSupplier runBytes;
  private final long pageSize;
  private final Runs runs;

  /** Bounded: a window forgotten early costs one run that starts a page late. */
  private final Cache<PageId.FileKey, Window> windows =
      Caches.builder().maximumSize(4096).expireAfterAccess(Duration.ofSeconds(30)).build();

  ReadAhead(LongSupplier windowBytes, LongSupplier runBytes, long pageSize, Runs runs) {
    this.windowBytes = windowBytes;
    this.runBytes = runBytes;
    this.pageSize = pageSize;
    this.runs = runs;
  }

  /** Page {@code index} of {@code target} was asked for; {@code missed}: it was not cached. */
  void asked(Target target, long index, boolean missed) {
    long window = windowBytes.getAsLong() / pageSize;
    if (window < 2) {
      return;
    }
    Window w = windows.getIfPresent(target.key());
    if (w == null || index >= w.next || index < w.next - 2 * window) {
      if (!missed || !follows(target, index)) {
        return;
      }
      w = new Window(index + 1);
      windows.put(target.key(), w);
    }
    long pages = (target.fileLength() + pageSize - 1) / pageSize;
    long run = Math.max(1, Math.min(window, runBytes.getAsLong() / pageSize));
    while (true) {
      long from;
      long to;
      synchronized (w) {
        if (w.next - index >= window || w.next >= pages) {
          return;
        }
        from = w.next;
        to = Math.min(pages, from + run);
        w.next = to;
      }
      runs.start(target, from, to);
    }
  }

  /** Whether a missed page continues an in-order read: the file's first, or after a page read. */
  private boolean follows(Target target, long index) {
    return index == 0 || runs.cachedOrComing(target.key().page(index - 1));
  }
}
