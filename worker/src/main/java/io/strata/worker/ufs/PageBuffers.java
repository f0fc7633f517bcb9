package io.strata.worker.ufs;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Buffers of exactly one page for what the worker reads from under-storages, kept when released and
 * handed out again; any other size comes from {@code fallback}.
 *
 * <p>Netty's pooled allocator frees a chunk as soon as its last buffer is released, and a page of 1
 * MiB fills a quarter of one: a run of pages read, written to disk and released took new chunks
 * every time, which the JDK zeroes and the kernel faults in page by page. That was a fifth of the
 * CPU of cold reads from HDFS (docs/performance-log.md). A page kept here is zeroed once.
 *
 * <p>How much is kept follows the memory tier: at least {@link #KEPT_BYTES}, and as much as the
 * tier has room for. When pages leave the tier all at once (a {@code free}, a tier made smaller, a
 * mount's pages dropped), their memory waits here for the pages that fill the tier again; dropped,
 * it came back from the kernel zeroed and faulted in page by page, and cold reads after a free ran
 * at half speed in one run of two (docs/performance-log.md). Page memory held by the worker stays
 * within the tier's capacity plus {@link #KEPT_BYTES} and the pages in flight.
 */
public final class PageBuffers extends AbstractByteBufAllocator {
  /** Bytes of released pages always kept; beyond, only as many as the memory tier has room for. */
  static final long KEPT_BYTES = 64L << 20;

  private static final int ALIGNMENT = 4096;

  private final ByteBufAllocator fallback;
  private final int pageSize;

  /** Bytes of released pages kept whatever the memory tier's room. */
  private final long floorBytes;

  /** Bytes the memory tier could still take now. */
  private final LongSupplier memoryRoom;

  /** Last released first: its bytes are the likeliest to be in the processor's caches still. */
  private final ConcurrentLinkedDeque<ByteBuffer> kept = new ConcurrentLinkedDeque<>();

  private final AtomicInteger keptCount = new AtomicInteger();

  /**
   * @param memoryRoom the bytes the memory tier could still take, asked at each release
   */
  public PageBuffers(ByteBufAllocator fallback, long pageSize, LongSupplier memoryRoom) {
    this(fallback, pageSize, KEPT_BYTES, memoryRoom);
  }

  /** With a floor of its own (a page is always kept when none is). */
  PageBuffers(ByteBufAllocator fallback, long pageSize, long floorBytes, LongSupplier memoryRoom) {
    super(true);
    this.fallback = fallback;
    this.pageSize = Math.toIntExact(pageSize);
    this.floorBytes = Math.max(pageSize, floorBytes);
    this.memoryRoom = memoryRoom;
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    if (initialCapacity != pageSize || maxCapacity != pageSize) {
      return fallback.directBuffer(initialCapacity, maxCapacity);
    }
    ByteBuffer memory = kept.pollFirst();
    if (memory == null) {
      return new Page(aligned(pageSize));
    }
    keptCount.decrementAndGet();
    return new Page(memory);
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
    return keptCount.get();
  }

  /** Keeps {@code memory} if the bound allows one more page (checked loosely under races). */
  private void keep(ByteBuffer memory) {
    long bound = Math.max(floorBytes, memoryRoom.getAsLong());
    if ((long) (keptCount.get() + 1) * pageSize <= bound) {
      keptCount.incrementAndGet();
      kept.offerFirst(memory);
    }
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
      keep(memory);
    }
  }
}
