package io.strata.worker.page;

import io.netty.buffer.ByteBuf;
import io.strata.core.util.FileChannels;
import io.strata.core.util.OwnedRefCount;
import io.strata.core.util.OwnerOnly;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One segment file: page records appended until it reaches the segment size, then sealed and never
 * written again. Evicting a segment deletes the whole file. Records are appended by reserving their
 * place at the end (under the tier's lock) and writing it with positioned writes (outside it, one
 * writer of the segment at a time); reads are positioned too.
 *
 * <p>The file channel is reference-counted: the tier holds one reference until it closes or deletes
 * the segment, and each {@link DiskPage} on its way to a socket holds another, so that a page being
 * sent from an evicted segment still comes from the (unlinked) file, never from a closed channel.
 */
final class Segment {
  final long id;
  final Path path;
  private final FileChannel channel;

  /** The pages of this segment the index points to. */
  final Set<PageId> pages = ConcurrentHashMap.newKeySet();

  /** Pages read since this segment became old: candidates to re-admit when it is evicted. */
  final Set<PageId> hot = ConcurrentHashMap.newKeySet();

  private final OwnedRefCount references;
  private volatile long size;
  private final AtomicInteger writers = new AtomicInteger();

  /**
   * Writers of one segment take turns: the file system serialises buffered writes of one file
   * anyway (ext4's inode lock), and its waiters spin on a core while the holder copies, where these
   * park.
   */
  private final ReentrantLock writing = new ReentrantLock();

  private volatile boolean sealed;
  volatile long lastAccessNanos;

  /**
   * Leased to readers outside the process until then (System.nanoTime scale): the file must stay.
   */
  private volatile long pinnedUntilNanos;

  private volatile boolean leased;

  private Segment(long id, Path path, FileChannel channel, long size, boolean sealed, long now) {
    this.id = id;
    this.path = path;
    this.channel = channel;
    this.references = new OwnedRefCount(this::closeChannel);
    this.size = size;
    this.sealed = sealed;
    this.lastAccessNanos = now;
  }

  /**
   * Keeps the file for readers outside the process until {@code untilNanos}; never shortens a pin.
   */
  void pinUntil(long untilNanos) {
    if (!leased || pinnedUntilNanos - untilNanos < 0) {
      pinnedUntilNanos = untilNanos;
      leased = true;
    }
  }

  /** When its pin runs out (meaningless unless {@link #pinnedAt} some time). */
  long pinnedUntilNanos() {
    return pinnedUntilNanos;
  }

  boolean pinnedAt(long nowNanos) {
    return leased && pinnedUntilNanos - nowNanos > 0;
  }

  /** Pages read since this segment became old, up to {@code percent} of its size: to re-admit. */
  List<PageId> hotPages(Map<PageId, PageLocation> locations, int percent) {
    List<PageId> out = new ArrayList<>();
    long budget = size() * percent / 100;
    for (PageId id : hot) {
      PageLocation loc = locations.get(id);
      if (loc != null && loc.segment() == this.id && budget >= loc.length()) {
        out.add(id);
        budget -= loc.length();
      }
    }
    return out;
  }

  /** {@code <root>/segments/<xx>/<yy>/seg-<id>}: two levels keep directories small. */
  static Path pathOf(Path root, long id) {
    return root.resolve("segments")
        .resolve(String.format("%02x", (id >> 16) & 0xff))
        .resolve(String.format("%02x", (id >> 8) & 0xff))
        .resolve("seg-" + id);
  }

  /**
   * The index entry of a segment (see {@code KeyLayout}): sealed or not, and its size when sealed.
   */
  static byte[] state(boolean sealed, long size) {
    return ByteBuffer.allocate(9).put((byte) (sealed ? 1 : 0)).putLong(size).array();
  }

  static Segment create(Path root, long id, long now) throws IOException {
    Path p = pathOf(root, id);
    Files.createDirectories(p.getParent());
    FileChannel ch =
        FileChannel.open(
            p,
            java.util.Set.of(
                StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
            OwnerOnly.fileAttribute());
    return new Segment(id, p, ch, 0, false, now);
  }

  static Segment open(Path root, long id, boolean sealed, long now) throws IOException {
    Path p = pathOf(root, id);
    FileChannel ch =
        sealed
            ? FileChannel.open(p, StandardOpenOption.READ)
            : FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new Segment(id, p, ch, ch.size(), sealed, now);
  }

  long size() {
    return size;
  }

  boolean sealed() {
    return sealed;
  }

  /**
   * Takes the place of a record of {@code length} bytes at the end; returns its offset. The caller
   * (holding the tier's lock) writes it with {@link #writeAt} and then calls {@link #written}.
   */
  long reserve(long length) {
    long start = size;
    size = start + length;
    writers.incrementAndGet();
    return start;
  }

  /** Writes one record at a reserved place; several writers may do so at once. */
  void writeAt(long offset, ByteBuffer header, ByteBuf data) throws IOException {
    long at = offset;
    ByteBuffer payload = data.nioBuffer(data.readerIndex(), data.readableBytes());
    writing.lock();
    try {
      while (header.hasRemaining()) {
        at += channel.write(header, at);
      }
      while (payload.hasRemaining()) {
        at += channel.write(payload, at);
      }
    } finally {
      writing.unlock();
    }
  }

  /** A reserved record was written, or given up. */
  void written() {
    writers.decrementAndGet();
  }

  /** Whether records are being written into reserved places: the segment must stay. */
  boolean writing() {
    return writers.get() > 0;
  }

  /** Reads until {@code dst} is full or the file ends; returns the bytes read. */
  int read(long position, ByteBuffer dst) throws IOException {
    return FileChannels.readFully(channel, position, dst);
  }

  /** Cuts a torn tail off a segment being recovered. */
  void truncate(long length) throws IOException {
    channel.truncate(length);
    size = length;
  }

  void seal() {
    sealed = true;
  }

  FileChannel channel() {
    return channel;
  }

  /** Takes a reference on the file channel; false if the segment is already closed. */
  boolean retain() {
    return references.acquire();
  }

  void release() {
    references.release();
  }

  /** Lets go of the tier's reference; the channel closes when the last page in flight is sent. */
  void close() {
    references.releaseOwner();
  }

  private void closeChannel() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // Closing a read channel loses nothing.
    }
  }

  void delete() throws IOException {
    close();
    Files.deleteIfExists(path);
  }
}
