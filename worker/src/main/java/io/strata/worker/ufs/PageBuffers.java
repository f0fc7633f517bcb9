package io.strata.worker.ufs;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingDeque;

/**
 * Buffers of exactly one page for what the worker reads from under-storages, kept when released and
 * handed out again; any other size comes from {@code fallback}.
 *
 * <p>Netty's pooled allocator frees a chunk as soon as its last buffer is released, and a page of 1
 * MiB fills a quarter of one: a run of pages read, written to disk and released took new chunks
 * every time, which the JDK zeroes and the kernel faults in page by page. That was a fifth of the
 * CPU of cold reads from HDFS (docs/performance.md). A page kept here is zeroed once.
 */
public final class PageBuffers extends AbstractByteBufAllocator {
  /** At most this many bytes of released pages are kept; beyond, released pages are dropped. */
  static final long KEPT_BYTES = 64L << 20;

  private static final int ALIGNMENT = 4096;

  private final ByteBufAllocator fallback;
  private final int pageSize;

  /** Last released first: its bytes are the likeliest to be in the processor's caches still. */
  private final LinkedBlockingDeque<ByteBuffer> kept;

  public PageBuffers(ByteBufAllocator fallback, long pageSize) {
    this(fallback, pageSize, KEPT_BYTES);
  }

  PageBuffers(ByteBufAllocator fallback, long pageSize, long keptBytes) {
    super(true);
    this.fallback = fallback;
    this.pageSize = Math.toIntExact(pageSize);
    this.kept = new LinkedBlockingDeque<>((int) Math.max(1, keptBytes / pageSize));
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    if (initialCapacity != pageSize || maxCapacity != pageSize) {
      return fallback.directBuffer(initialCapacity, maxCapacity);
    }
    ByteBuffer memory = kept.pollFirst();
    return new Page(memory != null ? memory : aligned(pageSize));
  }

  /**
   * Memory starting at a page boundary: the kernel copies from the page cache into it (a pread)
   * slower when the two are not aligned alike.
   */
  private static ByteBuffer aligned(int size) {
    return ByteBuffer.allocateDirect(size + ALIGNMENT - 1)
        .alignedSlice(ALIGNMENT)
        .limit(size)
        .slice();
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return fallback.heapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return true;
  }

  /** Released pages kept for reuse now. */
  int kept() {
    return kept.size();
  }

  /** A page over memory of its own, which goes back to the kept ones when released. */
  private final class Page extends UnpooledDirectByteBuf {
    private final ByteBuffer memory;

    Page(ByteBuffer memory) {
      // The ByteBuffer constructor wraps memory without taking ownership (nothing freed on
      // release).
      super(PageBuffers.this, memory.clear(), pageSize);
      this.memory = memory;
      clear();
    }

    @Override
    protected void deallocate() {
      super.deallocate();
      // Beyond the bound the memory is dropped: the JDK frees it with the buffer's cleaner, and
      // reserving direct memory that is short collects such buffers first.
      kept.offerFirst(memory);
    }
  }
}
