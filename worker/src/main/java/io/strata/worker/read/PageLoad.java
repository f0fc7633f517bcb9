package io.strata.worker.read;

import io.netty.buffer.ByteBuf;
import io.strata.worker.read.PageFetcher.Fetched;
import io.strata.worker.read.PageFetcher.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** One UFS read of one page and the callers waiting for it. */
final class PageLoad {
  private final List<CompletableFuture<Fetched>> waiters = new ArrayList<>();
  private boolean claimed;
  private boolean finished;

  /** Read ahead, and no request has waited for it yet: the miss is the first such request's. */
  private boolean missUncounted;

  /** A load the read-ahead starts, claimed by it. */
  static PageLoad readAhead() {
    PageLoad load = new PageLoad();
    load.claimed = true;
    load.missUncounted = true;
    return load;
  }

  /** True once, for the first request that waits for a read-ahead load. */
  synchronized boolean takeMiss() {
    boolean take = missUncounted;
    missUncounted = false;
    return take;
  }

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
