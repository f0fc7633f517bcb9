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
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
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
 *
 * <p>Once every slot over a 2 MiB stretch of the file is taken, the stretch is put in one huge page
 * ({@link HugePageCollapse}, unless turned off): sendfile is faster from those than from the 4 KiB
 * pages a tmpfs otherwise holds. Thread-safe.
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

  /** Null without huge pages. */
  private final HugePageCollapse huge;

  /** Fresh memory for a freed slot before it is written again (see {@link SlotHoles}). */
  private final SlotHoles holes;

  /** 2 MiB stretches of the file asked into a huge page since they were last cut off. */
  private final BitSet stretchesAsked = new BitSet();

  /** Those of them the kernel put in one. */
  private final BitSet stretchesHuge = new BitSet();

  /** Collapses under way: the file is not cut back meanwhile (a stretch must stay in it). */
  private int collapsing;

  private final AtomicBoolean warnedFull = new AtomicBoolean();
  private long fileBytes;
  private boolean closed;

  private ShmArena(FileChannel file, int slotSize, HugePageCollapse huge, SlotHoles holes) {
    this.holes = holes;
    this.file = file;
    this.slotSize = slotSize;
    this.huge = huge;
    this.slotsPerChunk = (int) Math.max(1, CHUNK_BYTES / slotSize);
  }

  /**
   * An arena in {@code dir}; null (and one warning) when that folder cannot hold one, the memory
   * tier then keeping its pages in direct memory. {@code hugePages}: put full 2 MiB stretches in
   * huge pages.
   */
  public static ShmArena open(Path dir, int slotSize, boolean hugePages) {
    Path path = dir.resolve("strata-mem-" + UUID.randomUUID());
    FileChannel ch = null;
    HugePageCollapse huge = null;
    SlotHoles holes = null;
    try {
      // Owner-only from its creation: in the moment before the unlink below, another account
      // must not open the cached pages of every user (issue 54).
      ch =
          FileChannel.open(
              path,
              Set.of(
                  StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      huge = hugePages ? HugePageCollapse.open(path) : null;
      holes = SlotHoles.open(path);
      Files.delete(path);
      return new ShmArena(ch, slotSize, huge, holes);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.warn(
          "memory tier: cannot keep pages in {} ({}); they stay in direct memory",
          dir,
          e.toString());
      if (huge != null) {
        huge.close();
      }
      if (holes != null) {
        holes.close();
      }
      try {
        if (ch != null) {
          ch.close();
        }
        Files.deleteIfExists(path);
      } catch (IOException ignored) {
        // Nothing more to give back.
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
    collapseAround(slot);
    return new SlotBuf(this, slot, view);
  }

  /**
   * Puts each 2 MiB stretch that {@code slot} lies in into a huge page, once all of it is taken.
   */
  private void collapseAround(int slot) {
    if (huge == null) {
      return;
    }
    int last = (int) ((offset(slot + 1) - 1) / HugePageCollapse.HUGE_PAGE);
    for (int stretch = (int) (offset(slot) / HugePageCollapse.HUGE_PAGE);
        stretch <= last;
        stretch++) {
      if (!claim(stretch)) {
        continue;
      }
      boolean done = false;
      try {
        done = huge.collapse(stretch * HugePageCollapse.HUGE_PAGE);
      } finally {
        synchronized (this) {
          collapsing--;
          if (done) {
            stretchesHuge.set(stretch);
          }
          if (closed && collapsing == 0) {
            huge.close();
          }
        }
      }
    }
  }

  /** Whether to collapse {@code stretch} now: every slot over it taken, and not asked before. */
  private synchronized boolean claim(int stretch) {
    int first = (int) (stretch * HugePageCollapse.HUGE_PAGE / slotSize);
    int last = (int) (((stretch + 1) * HugePageCollapse.HUGE_PAGE - 1) / slotSize);
    if (closed || stretchesAsked.get(stretch) || used.nextClearBit(first) <= last) {
      return false;
    }
    stretchesAsked.set(stretch);
    collapsing++;
    return true;
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
    if (!closed) {
      try {
        holes.punch(offset(slot), slotSize);
      } catch (IOException e) {
        // Never written over while a socket may still read its old memory: the slot stays taken.
        LOG.warn("memory tier: a slot is given up: {}", e.toString());
        return;
      }
      // A hole splits a huge page: the stretch may be collapsed again once full.
      int stretch = (int) (offset(slot) / HugePageCollapse.HUGE_PAGE);
      stretchesAsked.clear(stretch);
      stretchesHuge.clear(stretch);
    }
    used.clear(slot);
    long top = offset(used.length());
    if (!closed && collapsing == 0 && fileBytes - top >= TRIM_SLACK) {
      try {
        // The mapping stays: nothing reads the free slots above, and writing one grows the file.
        file.truncate(top);
        fileBytes = top;
        int cut = (int) (top / HugePageCollapse.HUGE_PAGE);
        stretchesAsked.clear(cut, Math.max(cut, stretchesAsked.length()));
        stretchesHuge.clear(cut, Math.max(cut, stretchesHuge.length()));
      } catch (IOException e) {
        LOG.debug("memory tier: cannot cut its file back: {}", e.toString());
      }
    }
  }

  /** Bytes of shared memory the file holds at most now (its length). */
  public synchronized long fileBytes() {
    return fileBytes;
  }

  /** Bytes of the file in huge pages. */
  public synchronized long hugeBytes() {
    return stretchesHuge.cardinality() * HugePageCollapse.HUGE_PAGE;
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
    holes.close();
    if (huge != null && collapsing == 0) {
      // Else the last collapse under way closes it: its descriptor must not be reused meanwhile.
      huge.close();
    }
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
