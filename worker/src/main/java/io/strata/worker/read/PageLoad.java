package io.strata.worker.read;

import io.netty.buffer.ByteBuf;
import io.strata.worker.read.PageFetcher.Fetched;
import io.strata.worker.read.PageFetcher.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One UFS read of one page and the callers waiting for it. The waiters get the page as soon as it
 * is read, before the cache has written it: a page read but not yet admitted is served from here,
 * to those who come meanwhile, until {@link #retire} (called once the cache holds it).
 */
final class PageLoad {
  private final List<CompletableFuture<Fetched>> waiters = new ArrayList<>();
  private boolean claimed;
  private boolean finished;

  /** The page read, held for late subscribers between finish and retire. */
  private ByteBuf served;

  private Source servedFrom;

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

  /**
   * A future for the page; null if the load ended without a page to hand out (failed, or retired:
   * look in the store again).
   */
  synchronized CompletableFuture<Fetched> subscribe() {
    if (served != null) {
      return CompletableFuture.completedFuture(new Fetched(served.retainedDuplicate(), servedFrom));
    }
    if (finished) {
      return null;
    }
    CompletableFuture<Fetched> f = new CompletableFuture<>();
    waiters.add(f);
    return f;
  }

  /**
   * Hands the page (or the error) to every waiter. With a page, keeps a reference of its own for
   * later subscribers until {@link #retire}; the caller keeps its own reference.
   */
  void finish(ByteBuf page, Source source, Throwable error) {
    List<CompletableFuture<Fetched>> toComplete;
    synchronized (this) {
      finished = true;
      if (error == null && page != null) {
        served = page.retain();
        servedFrom = source;
      }
      toComplete = List.copyOf(waiters);
      waiters.clear();
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

  /** Lets go of the page kept for late subscribers: the store holds it now, or never will. */
  void retire() {
    ByteBuf page;
    synchronized (this) {
      page = served;
      served = null;
    }
    if (page != null) {
      page.release();
    }
  }
}
