package io.strata.worker.page;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.netty.buffer.ByteBuf;
import io.strata.core.util.Caches;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The frequency-aware memory tier: Caffeine's W-TinyLFU, which admits a new page only if it is
 * likely to be read more than the page it would push out, so one scan over a large dataset does not
 * flush pages read again and again. Caffeine records reads through bounded buffers that drop rather
 * than block.
 */
final class TinyLfuMemTier implements MemTier {
  private final Cache<PageId, ByteBuf> pages;
  private volatile long capacity;

  TinyLfuMemTier(long capacity, Consumer<PageId> onEvict) {
    this.capacity = capacity;
    this.pages =
        Caches.builder()
            .maximumWeight(capacity)
            .weigher((PageId id, ByteBuf page) -> page.readableBytes())
            .removalListener(
                (PageId id, ByteBuf page, RemovalCause cause) -> {
                  if (page != null) {
                    page.release();
                  }
                  if (cause.wasEvicted()) {
                    onEvict.accept(id);
                  }
                })
            .build();
  }

  @Override
  public ByteBuf get(PageId id) {
    ByteBuf[] found = new ByteBuf[1];
    pages
        .asMap()
        .computeIfPresent(
            id,
            (k, page) -> {
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
  public void put(PageId id, ByteBuf page) {
    if (page.readableBytes() > capacity) {
      return;
    }
    ByteBuf mine = page.retainedDuplicate();
    if (pages.asMap().putIfAbsent(id, mine) != null) {
      mine.release();
    }
  }

  @Override
  public boolean replace(PageId id, ByteBuf page) {
    // The old buffer goes to the removal listener (cause REPLACED), which releases it.
    return pages.asMap().computeIfPresent(id, (k, old) -> page.retainedDuplicate()) != null;
  }

  @Override
  public void remove(PageId id) {
    pages.invalidate(id);
  }

  @Override
  public long used() {
    return pages.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public long pages() {
    return pages.estimatedSize();
  }

  @Override
  public Stream<PageId> ids() {
    return pages.asMap().keySet().stream();
  }

  @Override
  public void setCapacity(long bytes) {
    capacity = bytes;
    pages.policy().eviction().ifPresent(e -> e.setMaximum(bytes));
    pages.cleanUp();
  }

  @Override
  public void close() {
    pages.invalidateAll();
    pages.cleanUp();
  }
}
