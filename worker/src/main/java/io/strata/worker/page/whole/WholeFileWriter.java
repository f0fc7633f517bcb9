package io.strata.worker.page.whole;

import io.netty.buffer.ByteBuf;
import io.strata.core.util.OwnerOnly;
import io.strata.worker.page.PageId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * One version being written into its whole file ({@link WholeFileArea#begin}): pages in any order,
 * each one's crc32c taken from the bytes written, into a part file beside the final name; then
 * sealed once, when every page is there. Nothing of it is served before the seal, and a writer
 * closed unsealed leaves nothing behind.
 */
public final class WholeFileWriter implements AutoCloseable {
  private final WholeFileArea area;
  private final PageId.FileKey key;
  private final long length;
  private final int pageSize;
  private final Path part;
  private final FileChannel out;
  private final int[] crcs;
  private final BitSet written;
  private boolean done;

  /** Renamed into place: no part is left to delete. */
  private boolean sealed;

  /** Bytes written into the part, counted in the area's {@link WholeFileArea#sealing}. */
  private long partBytes;

  WholeFileWriter(WholeFileArea area, PageId.FileKey key, long length, int pageSize)
      throws IOException {
    this.area = area;
    this.key = key;
    this.length = length;
    this.pageSize = pageSize;
    this.crcs = new int[WholeFile.pageCount(length, pageSize)];
    this.written = new BitSet(crcs.length);
    this.part = area.dir().resolve(WholeFileArea.name(key) + ".part");
    this.out = createPart(part);
  }

  /**
   * The part, new. Only one writer of a key at a time: a part found is one a stopped worker left,
   * deleted then. Not looked for first: Files.deleteIfExists would lstat the missing name on every
   * cold file (a path walk each, about 3 % of the worker's CPU on a cold epoch).
   */
  private static FileChannel createPart(Path part) throws IOException {
    Set<StandardOpenOption> options =
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      return FileChannel.open(part, options, OwnerOnly.fileAttribute());
    } catch (FileAlreadyExistsException e) {
      Files.delete(part);
      return FileChannel.open(part, options, OwnerOnly.fileAttribute());
    }
  }

  public long pages() {
    return crcs.length;
  }

  /**
   * Writes page {@code index} (the caller keeps its reference); false if it is not a page of the
   * version or not of the page's length, which makes the file unsealable.
   */
  public synchronized boolean write(long index, ByteBuf page) throws IOException {
    long at = index * pageSize;
    if (done
        || index < 0
        || index >= crcs.length
        || page.readableBytes() != Math.min(pageSize, length - at)) {
      done = true;
      return false;
    }
    CRC32C crc = new CRC32C();
    long from = at;
    try {
      for (ByteBuffer b : page.nioBuffers()) {
        crc.update(b.duplicate());
        while (b.hasRemaining()) {
          at += out.write(b, at);
        }
      }
    } finally {
      partBytes += at - from;
      area.partGrew(at - from);
    }
    crcs[(int) index] = (int) crc.getValue();
    written.set((int) index);
    return true;
  }

  /**
   * Renames the file into place and indexes it, if every page was written; empty otherwise (the
   * part is deleted at {@link #close}).
   */
  public synchronized Optional<WholeFile> seal() throws IOException {
    if (done || written.cardinality() != crcs.length) {
      return Optional.empty();
    }
    done = true;
    out.close();
    Path path = area.dir().resolve(WholeFileArea.name(key));
    Files.move(part, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    sealed = true;
    WholeFile file = new WholeFile(key, path, length, pageSize, crcs);
    // Out of the parts before it is counted as held: a moment's undercount, never a double count.
    area.partGrew(-partBytes);
    partBytes = 0;
    area.sealed(file);
    return Optional.of(file);
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      out.close();
      if (!sealed) {
        Files.deleteIfExists(part);
      }
    } finally {
      area.partGrew(-partBytes);
      partBytes = 0;
      done = true;
      area.writerClosed(key);
    }
  }
}
