package io.strata.worker.page;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.netty.buffer.ByteBuf;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.strata.worker.WorkerMetrics;

/**
 * Pages in off-heap memory, bounded by bytes, evicted by Caffeine's W-TinyLFU policy (frequency
 * aware: one scan over a large dataset does not flush the pages read again and again).
 *
 * <p>Reference counting and eviction meet here: a reader's reference is taken inside the map's
 * per-key compute, and the store's reference is released only after the entry has left the map,
 * so a page can never be freed between a lookup and its retain.
 */
public final class MemoryPageStore implements PageStore {
  private final Cache<PageId, ByteBuf> pages;
  private volatile long capacity;
  private final Counter evictions;

  public MemoryPageStore(long capacityBytes, MeterRegistry registry) {
    this.capacity = capacityBytes;
    this.evictions = Counter.builder(WorkerMetrics.PAGE_EVICTIONS).tag("tier", "MEM")
        .description("Pages evicted from the cache").register(registry);
    this.pages = Caffeine.newBuilder()
        .maximumWeight(capacityBytes)
        .weigher((PageId id, ByteBuf page) -> page.readableBytes())
        .executor(Runnable::run)
        .removalListener((PageId id, ByteBuf page, com.github.benmanes.caffeine.cache.RemovalCause cause) -> {
          if (cause.wasEvicted()) {
            evictions.increment();
          }
          if (page != null) {
            page.release();
          }
        })
        .build();
    Gauge.builder(WorkerMetrics.PAGES_CACHED, this, PageStore::pageCount).tag("tier", "MEM")
        .description("Pages in the cache").register(registry);
    Gauge.builder(WorkerMetrics.CACHE_USED_BYTES, this, PageStore::usedBytes).tag("tier", "MEM")
        .description("Bytes of cached pages").register(registry);
    Gauge.builder(WorkerMetrics.CACHE_CAPACITY_BYTES, this, PageStore::capacityBytes).tag("tier", "MEM")
        .description("Capacity of the cache tier").register(registry);
  }

  @Override
  public ByteBuf get(PageId id) {
    ByteBuf[] found = new ByteBuf[1];
    pages.asMap().computeIfPresent(id, (k, page) -> {
      found[0] = page.retainedDuplicate();
      return page;
    });
    return found[0];
  }

  @Override
  public boolean contains(PageId id) {
    return pages.asMap().containsKey(id);
  }

  @Override
  public boolean put(PageId id, ByteBuf page) {
    if (page.readableBytes() > capacity) {
      return false;
    }
    ByteBuf mine = page.retainedDuplicate();
    if (pages.asMap().putIfAbsent(id, mine) != null) {
      mine.release();
    }
    return true;
  }

  @Override
  public void remove(PageId id) {
    pages.invalidate(id);
  }

  /** Changes the capacity while running; a smaller one evicts down to it. */
  public void setCapacity(long bytes) {
    capacity = bytes;
    pages.policy().eviction().ifPresent(e -> e.setMaximum(bytes));
    pages.cleanUp();
  }

  @Override
  public long capacityBytes() {
    return capacity;
  }

  @Override
  public long usedBytes() {
    return pages.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
  }

  @Override
  public long pageCount() {
    return pages.estimatedSize();
  }

  @Override
  public void close() {
    pages.invalidateAll();
    pages.cleanUp();
  }
}
