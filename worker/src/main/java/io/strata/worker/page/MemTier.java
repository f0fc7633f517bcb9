package io.strata.worker.page;

import io.netty.buffer.ByteBuf;
import java.util.stream.Stream;

/**
 * Pages in off-heap memory, bounded by bytes. The policy that picks what to evict is the
 * implementation's; the store hears of each eviction (to count demotions).
 *
 * <p>Reference counting and eviction meet here: a reader's reference is taken under the map's
 * per-key lock, and the tier's own reference is released only after the entry left the map, so a
 * page is never freed between a look-up and its retain. Thread-safe.
 */
public interface MemTier extends AutoCloseable {
  /**
   * The page with a reference (and reader index) of the caller's own, or null; records the access.
   */
  ByteBuf get(PageId id);

  boolean contains(PageId id);

  /** Keeps a page (taking a reference of its own) if it fits. */
  void put(PageId id, ByteBuf page);

  void remove(PageId id);

  /**
   * Swaps the buffer of a page it holds for another holding the same bytes (taking a reference of
   * its own), keeping the page's place in the eviction order; false if it does not hold the page.
   */
  boolean replace(PageId id, ByteBuf page);

  long used();

  long capacity();

  long pages();

  /** The ids of the pages it holds, as they are while the stream is read. */
  Stream<PageId> ids();

  /**
   * Which pages eviction passes over, where memory is the whole cache. The TinyLFU tier cannot
   * (Caffeine decides alone), and keeps no pins.
   */
  default void pins(PagePins pins) {}

  /** A smaller capacity evicts down to it. */
  void setCapacity(long bytes);

  @Override
  void close();
}
