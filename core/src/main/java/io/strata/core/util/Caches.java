package io.strata.core.util;

import com.github.benmanes.caffeine.cache.Caffeine;

/** How Strata builds its Caffeine caches. */
public final class Caches {
  private Caches() {}

  /**
   * A Caffeine builder whose upkeep (draining its buffers, expiring, evicting, removal listeners)
   * runs on the thread that uses the cache. Caffeine's default hands it to the common ForkJoinPool:
   * on paths of many small requests (4 KiB reads through FUSE, short-circuit leases, page look-ups)
   * each hand-off wakes a thread, and a FUSE daemon spent a quarter more CPU per 4 KiB read for it
   * (random reads through the daemon rose from 0.71 to 0.90 of bindfs without it).
   */
  public static Caffeine<Object, Object> builder() {
    return Caffeine.newBuilder().executor(Runnable::run);
  }
}
