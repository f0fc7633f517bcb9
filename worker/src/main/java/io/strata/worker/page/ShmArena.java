package io.strata.worker.page;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Memory for whole pages of the memory tier in one shared-memory file (tmpfs), so that a page can
 * be sent by sendfile like an SSD page: over a domain socket the kernel then hands the receiver
 * references to the file's pages, one copy per byte where a buffer of anonymous memory costs two.
 *
 * <p>The file is unlinked as soon as it is open: its memory goes back to the system when the worker
 * exits, however it exits. Pages are written into it with {@code pwrite} (a full file system is an
 * {@link IOException}, not a fault on a mapped store) and read through a mapping of it. A page
 * holds a slot of {@code slotSize} bytes; the lowest free slot is taken first, and the file is cut
 * back when its top stretch falls free, so the memory it holds tracks what the tier holds.
 * Thread-safe.
 */
public final class ShmArena implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShmArena.class);

  /** How much of the file is mapped at a time. */
  private static final long CHUNK_BYTES = 64 << 20;

  /** Free bytes above the highest used slot before the file is cut back: a chunk's worth. */
  private static final long TRIM_SLACK = CHUNK_BYTES;

  private final FileChannel file;
  private final int slotSize;
  private final int slotsPerChunk;
  private final List<MappedByteBuffer> chunks = new ArrayList<>();
  private final BitSet used = new BitSet();
  private final AtomicBoolean warnedFull = new AtomicBoolean();
  private long fileBytes;
  private boolean closed;

  private ShmArena(FileChannel file, int slotSize) {
    this.file = file;
    this.slotSize = slotSize;
    this.slotsPerChunk = (int) Math.max(1, CHUNK_BYTES / slotSize);
  }

  /**
   * An arena in {@code dir}; null (and one warning) when that folder cannot hold one, the memory
   * tier then keeping its pages in direct memory.
   */
  public static ShmArena open(Path dir, int slotSize) {
    Path path = dir.resolve("strata-mem-" + UUID.randomUUID());
    try {
      FileChannel ch =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      Files.delete(path);
      return new ShmArena(ch, slotSize);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.warn(
          "memory tier: cannot keep pages in {} ({}); they stay in direct memory",
          dir,
          e.toString());
      try {
        Files.deleteIfExists(path);
      } catch (IOException ignored) {
        // Nothing was made.
      }
      return null;
    }
  }

  /** Whether a page of this length takes a slot (a file's shorter last page does not). */
  public boolean fits(ByteBuf page) {
    return page.readableBytes() == slotSize;
  }

  /**
   * The readable bytes of {@code page} copied into a slot, as a buffer that frees the slot when its
   * last reference goes; null when the file system has no room (the caller keeps the page where it
   * is).
   */
  public ByteBuf copyOf(ByteBuf page) {
    if (!fits(page)) {
      throw new IllegalArgumentException(page.readableBytes() + " bytes in slots of " + slotSize);
    }
    int slot;
    ByteBuffer view;
    synchronized (this) {
      if (closed) {
        return null;
      }
      slot = used.nextClearBit(0);
      used.set(slot);
      try {
        view = view(slot);
        fileBytes = Math.max(fileBytes, offset(slot + 1));
      } catch (IOException e) {
        used.clear(slot);
        LOG.warn("memory tier: cannot map its file: {}", e.toString());
        return null;
      }
    }
    try {
      ByteBuffer src = page.nioBuffer();
      long at = offset(slot);
      while (src.hasRemaining()) {
        at += file.write(src, at);
      }
    } catch (IOException e) {
      free(slot);
      if (!warnedFull.getAndSet(true)) {
        LOG.warn(
            "memory tier: no room in its shared-memory file ({}); pages that do not fit stay in "
                + "direct memory (said once)",
            e.toString());
      }
      return null;
    }
    return new SlotBuf(this, slot, view);
  }

  /** Whether {@code page} (or the buffer it derives from) lies in an arena. */
  public static boolean holds(ByteBuf page) {
    return root(page) != null;
  }

  /**
   * Bytes {@code [from, from + count)} of an arena page as a region sent by sendfile, holding a
   * reference of its own.
   */
  public static FileRegion region(ByteBuf page, int from, int count) {
    SlotBuf s = checked(page, from, count);
    s.retain();
    return new SlotRegion(s, s.arena.offset(s.slot) + from, count);
  }

  private static SlotBuf root(ByteBuf page) {
    ByteBuf root = page;
    while (root.unwrap() != null) {
      root = root.unwrap();
    }
    return root instanceof SlotBuf s ? s : null;
  }

  private static SlotBuf checked(ByteBuf page, int from, int count) {
    SlotBuf s = root(page);
    if (s == null) {
      throw new IllegalArgumentException("not a page of an arena");
    }
    if (from < 0 || count < 0 || from + count > s.capacity()) {
      throw new IndexOutOfBoundsException(from + "+" + count + " of a page of " + s.capacity());
    }
    return s;
  }

  private long offset(int slot) {
    return (long) slot * slotSize;
  }

  /** A slot's bytes in the mapping, mapping the chunk that holds it if not yet mapped. */
  private ByteBuffer view(int slot) throws IOException {
    int chunk = slot / slotsPerChunk;
    while (chunks.size() <= chunk) {
      long start = (long) chunks.size() * slotsPerChunk * slotSize;
      // A shared mapping of a tmpfs file: reading a slot's bytes costs no copy. Mapping extends the
      // file's length, not its memory; a slot's memory is taken when its page is written.
      chunks.add(file.map(FileChannel.MapMode.READ_WRITE, start, (long) slotsPerChunk * slotSize));
      fileBytes = Math.max(fileBytes, start + (long) slotsPerChunk * slotSize);
    }
    return chunks.get(chunk).slice((slot % slotsPerChunk) * slotSize, slotSize);
  }

  private synchronized void free(int slot) {
    used.clear(slot);
    long top = offset(used.length());
    if (!closed && fileBytes - top >= TRIM_SLACK) {
      try {
        // The mapping stays: nothing reads the free slots above, and writing one grows the file.
        file.truncate(top);
        fileBytes = top;
      } catch (IOException e) {
        LOG.debug("memory tier: cannot cut its file back: {}", e.toString());
      }
    }
  }

  /** Bytes of shared memory the file holds at most now (its length). */
  public synchronized long fileBytes() {
    return fileBytes;
  }

  /** Slots in use. */
  public synchronized int slotsUsed() {
    return used.cardinality();
  }

  /**
   * Closes the file; its memory goes back once the pages still referenced (mapped views) are
   * collected.
   */
  @Override
  public synchronized void close() {
    closed = true;
    try {
      file.close();
    } catch (IOException e) {
      LOG.debug("memory tier: closing its file: {}", e.toString());
    }
  }

  /** A page in a slot: the mapped bytes, and the slot back to the arena with the last reference. */
  private static final class SlotBuf extends UnpooledDirectByteBuf {
    final ShmArena arena;
    final int slot;

    SlotBuf(ShmArena arena, int slot, ByteBuffer view) {
      super(UnpooledByteBufAllocator.DEFAULT, view, view.capacity());
      this.arena = arena;
      this.slot = slot;
    }

    @Override
    protected void deallocate() {
      super.deallocate();
      arena.free(slot);
    }
  }

  /**
   * Part of a slot, sent by sendfile from the arena's file; gives back its page reference when sent
   * instead of closing the shared channel.
   */
  private static final class SlotRegion extends DefaultFileRegion {
    private final SlotBuf page;

    SlotRegion(SlotBuf page, long position, long count) {
      super(page.arena.file, position, count);
      this.page = page;
    }

    @Override
    protected void deallocate() {
      page.release();
    }
  }
}
