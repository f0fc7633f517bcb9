package io.strata.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.strata.client.data.StreamReader;
import io.strata.core.status.StrataException;
import java.io.EOFException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads one version of a file (the one its {@link FileInfo} names).
 *
 * <p>The bytes that came with the open are read first. Sequential reading past them comes from a
 * {@link StreamReader}: the file's owner streams the bytes ahead of the position and the reader
 * takes them off the socket on its own thread, straight into the caller's buffer. A short jump
 * forward reads through the stream; any other jump opens a new one there. Bytes a worker on this
 * host lets the client read from its files are read straight into the caller's buffer instead. If
 * the worker fails under the stream (or the source has no streams), reading goes on by {@link
 * ChunkedReadAhead}, with the source's failover. Positioned reads ({@link #positionedRead}) go
 * straight into the caller's buffer, never move the stream, and are split into parallel requests
 * when large.
 *
 * <p>If the file changes in the under-storage while it is read, reads fail with FAILED_PRECONDITION
 * rather than mix two versions. Not thread-safe, like any InputStream; positioned reads may run
 * concurrently.
 */
public final class FileInStream extends InputStream {
  static final int CHUNK = 1 << 20;

  /**
   * A chunk holds the socket's buffers as they came (see ReadCall); never merge them by copying.
   */
  static final int MAX_COMPONENTS = 4096;

  /** Where chunks and positioned reads come from. */
  interface Source {
    CompletableFuture<Integer> readAsync(FileInfo file, long offset, ByteBuf dst, int length);

    /** Reads {@code dst.remaining()} bytes (fewer only at end of file) into {@code dst}. */
    int read(FileInfo file, long offset, ByteBuffer dst);

    /**
     * Reads into {@code dst} at once from this host (short-circuit) when the file's worker allows
     * it; -1 when it does not (and {@code dst} is as it was), and the stream reads over the
     * network.
     */
    default int readLocal(FileInfo file, long offset, ByteBuffer dst) {
      return -1;
    }

    /**
     * The file's bytes from {@code offset} on as a stream read on the caller's thread; null when
     * this source has none (then the stream reads ahead by chunks).
     */
    default StreamReader stream(FileInfo file, long offset) {
      return null;
    }

    /**
     * A read was refused (the file changed, vanished...): the caller's error, not a worker's
     * failure.
     */
    default void refused(StrataException e) {}
  }

  private final FileInfo file;
  private final Source source;
  private final int chunkSize;
  private final ChunkedReadAhead chunks;
  private long position;
  private long lastEnd = -1;
  private boolean closed;
  private StreamReader stream;

  /**
   * No stream (the source has none, or a worker failed under one): chunks, with their failover,
   * from now on.
   */
  private boolean chunksOnly;

  /**
   * The whole file, when it came with the open (a small file): positioned reads copy from it rather
   * than asking a worker again. Only read (absolute indices), so threads may share it.
   */
  private ByteBuf whole;

  FileInStream(FileInfo file, Source source, ByteBufAllocator allocator, long readAheadMax) {
    this.file = file;
    this.source = source;
    this.chunkSize = (int) Math.min(CHUNK, Math.max(1, readAheadMax));
    this.chunks =
        new ChunkedReadAhead(
            file, source, allocator, chunkSize, (int) Math.max(1, readAheadMax / chunkSize));
  }

  /**
   * A stream whose first {@code headLength} bytes came with the open, in {@code head} (which it now
   * owns).
   */
  FileInStream(
      FileInfo file,
      Source source,
      ByteBufAllocator allocator,
      long readAheadMax,
      ByteBuf head,
      int headLength) {
    this(file, source, allocator, readAheadMax);
    if (headLength > 0) {
      if (headLength >= file.length()) {
        whole = head.retainedDuplicate();
      }
      chunks.addHead(head, headLength);
      lastEnd = 0;
    } else {
      head.release();
    }
  }

  public FileInfo info() {
    return file;
  }

  public long length() {
    return file.length();
  }

  public long getPos() {
    return position;
  }

  public void seek(long newPosition) {
    checkOpen();
    if (newPosition < 0) {
      throw StrataException.invalidArgument("cannot seek to a negative position " + newPosition);
    }
    position = newPosition;
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    return read(ByteBuffer.wrap(b, off, len));
  }

  /**
   * Reads up to {@code dst.remaining()} bytes at the stream's position into {@code dst}, advancing
   * both; -1 at end of file. Into a direct buffer, streamed bytes come off the socket with no copy
   * in between.
   */
  public int read(ByteBuffer dst) {
    checkOpen();
    if (!dst.hasRemaining()) {
      return 0;
    }
    if (position >= file.length()) {
      return -1;
    }
    int want = (int) Math.min(dst.remaining(), file.length() - position);
    int n = readInto(dst.slice(dst.position(), want));
    dst.position(dst.position() + n);
    return n;
  }

  /** Reads into all of {@code dst} or less (at least a byte), which lies within the file. */
  private int readInto(ByteBuffer dst) {
    int n;
    if (!chunksOnly && chunks.covers(position)) {
      n = chunks.readHead(position, dst);
    } else {
      n = chunks.covers(position) ? -1 : readLocalOrStream(dst);
      if (n <= 0) {
        n = chunks.read(position, lastEnd, dst);
      }
    }
    position += n;
    lastEnd = position;
    if (position >= file.length()) {
      closeStream();
    }
    return n;
  }

  /** From this host's segment files, else the stream; -1 if neither serves (chunks then). */
  private int readLocalOrStream(ByteBuffer dst) {
    // Local bytes go straight into the caller's buffer: read-ahead would only add a copy.
    int n = source.readLocal(file, position, dst);
    if (n > 0) {
      chunks.drop();
      return n;
    }
    return chunksOnly ? -1 : readStream(dst);
  }

  /** Reads from the stream, opening one at the position if need be; -1 if the stream is off. */
  private int readStream(ByteBuffer dst) {
    if (stream != null && stream.position() != position && !stream.skipTo(position)) {
      closeStream();
    }
    if (stream == null) {
      stream = source.stream(file, position);
      if (stream == null) {
        chunksOnly = true;
        return -1;
      }
      chunks.drop();
    }
    try {
      return stream.read(dst);
    } catch (StrataException e) {
      closeStream();
      if (!RingFailover.workerFailed(e)) {
        source.refused(e);
        throw e;
      }
      chunksOnly = true;
      return -1;
    }
  }

  private void closeStream() {
    if (stream != null) {
      stream.close();
      stream = null;
    }
  }

  /** Reads at {@code pos} without moving the stream; -1 at or past the end. */
  public int positionedRead(long pos, byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    return positionedRead(pos, ByteBuffer.wrap(b, off, len));
  }

  /**
   * Reads {@code dst.remaining()} bytes at {@code pos} (fewer only at end of file) into {@code
   * dst}, advancing it, without moving the stream; -1 at or past the end.
   */
  public int positionedRead(long pos, ByteBuffer dst) {
    checkOpen();
    if (pos >= file.length()) {
      return -1;
    }
    int wanted = (int) Math.min(dst.remaining(), file.length() - pos);
    if (wanted == 0) {
      return 0;
    }
    ByteBuffer range = dst.slice(dst.position(), wanted);
    int total;
    if (whole != null) {
      whole.getBytes((int) pos, range);
      total = wanted;
    } else if (wanted <= chunkSize) {
      total = source.read(file, pos, range);
    } else {
      total = readInPieces(pos, range);
    }
    if (total != wanted) {
      // The range lies within the file: anything less is a hole, never data.
      throw StrataException.internal(
          "a read of " + wanted + " bytes at " + pos + " of " + file.path() + " got " + total,
          null);
    }
    dst.position(dst.position() + total);
    return total;
  }

  /**
   * Reads {@code dst.remaining()} bytes at {@code pos} (fewer only at end of file) from this host's
   * segment files only, without moving or touching the stream: safe to call from several threads at
   * once, beside one that reads the stream. Returns -1, leaving {@code dst} as it was, when the
   * range is not all on this host's disk (or at or past the end).
   */
  public int readLocal(long pos, ByteBuffer dst) {
    checkOpen();
    if (pos >= file.length() || whole != null) {
      return -1;
    }
    int wanted = (int) Math.min(dst.remaining(), file.length() - pos);
    int n = source.readLocal(file, pos, dst.slice(dst.position(), wanted));
    if (n != wanted) {
      return -1;
    }
    dst.position(dst.position() + n);
    return n;
  }

  /**
   * A large positioned read: chunk-sized pieces fetched in parallel, straight into the caller's
   * buffer. It returns, or throws, only once every piece is done: a piece still under way (failing
   * over, say) would otherwise go on writing into memory the caller has taken back (a FUSE thread's
   * reply buffer, by then holding the next request's answer: another file's bytes).
   */
  private int readInPieces(long pos, ByteBuffer range) {
    int wanted = range.remaining();
    int pieces = (wanted + chunkSize - 1) / chunkSize;
    List<CompletableFuture<Integer>> parts = new ArrayList<>(pieces);
    for (int i = 0; i < pieces; i++) {
      int from = i * chunkSize;
      int n = Math.min(chunkSize, wanted - from);
      parts.add(
          source.readAsync(
              file, pos + from, Unpooled.wrappedBuffer(range.slice(from, n)).clear(), n));
    }
    try {
      CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      // Each piece's outcome is told below, the first failure in order.
    }
    int total = 0;
    for (CompletableFuture<Integer> p : parts) {
      try {
        total += p.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof StrataException s
            ? s
            : StrataException.internal("read failed: " + e.getCause(), e.getCause());
      }
    }
    return total;
  }

  /** Reads exactly {@code len} bytes at {@code pos}, or fails with EOFException. */
  public void readFully(long pos, byte[] b, int off, int len) throws EOFException {
    int n = len == 0 ? 0 : positionedRead(pos, b, off, len);
    if (n < len) {
      throw new EOFException(
          "end of " + file.path() + " after " + (pos + Math.max(n, 0)) + " bytes");
    }
  }

  @Override
  public long skip(long n) {
    checkOpen();
    long skipped = Math.max(0, Math.min(n, file.length() - position));
    position += skipped;
    return skipped;
  }

  @Override
  public int available() {
    return chunks.available(position);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      chunks.drop();
      closeStream();
      if (whole != null) {
        whole.release();
        whole = null;
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw StrataException.invalidArgument("stream of " + file.path() + " is closed");
    }
  }
}
