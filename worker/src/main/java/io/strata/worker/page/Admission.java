package io.strata.worker.page;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;

/**
 * Whether a page read from the UFS enters the cache. SECOND_MISS admits a page only when it is
 * missed a second time within the last {@value #WINDOW} misses or so (a Bloom filter, reset when
 * full): a one-time scan of a huge dataset then passes without flushing the cache.
 */
public final class Admission {
  /** The admission policies strata.worker.page.store.admission names. */
  public enum Policy {
    ALWAYS,
    SECOND_MISS,
    NONE
  }

  static final int WINDOW = 1_000_000;
  private static final Funnel<PageId> FUNNEL =
      (id, into) -> into.putLong(id.keyHigh()).putLong(id.keyLow()).putLong(id.index());

  private BloomFilter<PageId> seen = newFilter();
  private int added;

  /** Decides for one missed page under {@code policy}. */
  public synchronized boolean admit(PageId id, Policy policy) {
    return switch (policy) {
      case ALWAYS -> true;
      case NONE -> false;
      case SECOND_MISS -> {
        if (seen.mightContain(id)) {
          yield true;
        }
        if (++added > WINDOW) {
          seen = newFilter();
          added = 1;
        }
        seen.put(id);
        yield false;
      }
    };
  }

  private static BloomFilter<PageId> newFilter() {
    return BloomFilter.create(FUNNEL, WINDOW, 0.01);
  }
}
