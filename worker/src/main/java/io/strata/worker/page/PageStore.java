package io.strata.worker.page;

import io.netty.buffer.ByteBuf;

/**
 * Where a worker keeps cached pages. Pages are Netty buffers with reference counts: the store
 * holds one reference to each page it keeps and hands readers their own.
 *
 * <p>Implementations are thread-safe.
 */
public interface PageStore extends AutoCloseable {
  /**
   * The page, or null if not cached. The caller gets its own reference and reader index (a
   * duplicate), and must release it.
   */
  ByteBuf get(PageId id);

  boolean contains(PageId id);

  /**
   * Offers a page; the store takes its own reference if it keeps it (the caller keeps theirs).
   * Returns whether the page was admitted.
   */
  boolean put(PageId id, ByteBuf page);

  void remove(PageId id);

  long capacityBytes();

  long usedBytes();

  long pageCount();

  @Override
  void close();
}
