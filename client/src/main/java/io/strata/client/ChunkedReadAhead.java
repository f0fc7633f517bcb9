package io.strata.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.Futures;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A {@link FileInStream}'s chunks: the bytes that came with the open, and read-ahead by chunks when
 * the stream has no {@code StreamReader} (the source has none, or a worker failed under one). Each
 * chunk is a request of its own through the source (with its failover), fetched into a composite of
 * the received network buffers themselves; the window of chunks in flight starts at one and doubles
 * while reads stay sequential, and a jump drops them. Not thread-safe.
 */
final class ChunkedReadAhead {
  /** A range of the file being fetched, or fetched, into a buffer of its own. */
  private static final class Chunk {
    final long offset;
    final int length;
    final ByteBuf buf;
    final CompletableFuture<Integer> done;

    Chunk(long offset, int length, ByteBuf buf, CompletableFuture<Integer> done) {
      this.offset = offset;
      this.length = length;
      this.buf = buf;
      this.done = done;
    }

    boolean covers(long pos) {
      return pos >= offset && pos < offset + length;
    }
  }

  private final FileInfo file;
  private final FileInStream.Source source;
  private final ByteBufAllocator allocator;
  private final int chunkSize;
  private final int maxWindow;
  private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
  private int window = 1;
  private long nextFetch;

  ChunkedReadAhead(
      FileInfo file,
      FileInStream.Source source,
      ByteBufAllocator allocator,
      int chunkSize,
      int maxWindow) {
    this.file = file;
    this.source = source;
    this.allocator = allocator;
    this.chunkSize = chunkSize;
    this.maxWindow = maxWindow;
  }

  /**
   * The file's first {@code length} bytes, which came with the open, in {@code head} (now owned
   * here).
   */
  void addHead(ByteBuf head, int length) {
    chunks.add(new Chunk(0, length, head, CompletableFuture.completedFuture(length)));
    nextFetch = length;
  }

  /** Whether the first chunk holds {@code pos}. */
  boolean covers(long pos) {
    Chunk head = chunks.peekFirst();
    return head != null && head.covers(pos);
  }

  /** Copies from the first chunk, which holds {@code pos} and has all its bytes (the open's). */
  int readHead(long pos, ByteBuffer dst) {
    Chunk head = chunks.peekFirst();
    int n = (int) Math.min(dst.remaining(), head.offset + head.length - pos);
    head.buf.getBytes((int) (pos - head.offset), dst.slice(dst.position(), n));
    return n;
  }

  /**
   * Reads into {@code dst} (at most its remaining room) at {@code pos}, fetching ahead; the
   * previous read ended at {@code lastEnd}. At least one byte, or the chunk's error.
   */
  int read(long pos, long lastEnd, ByteBuffer dst) {
    boolean sequential = pos == lastEnd || skipAheadTo(pos);
    if (!sequential || chunks.isEmpty() || !covers(pos)) {
      restartAt(pos, sequential);
    }
    int len = dst.remaining();
    int done = 0;
    long at = pos;
    while (done < len && at < file.length()) {
      fill();
      Chunk head = chunks.peekFirst();
      int got;
      try {
        got = awaitWhole(head);
      } catch (StrataException e) {
        // A failed chunk is not kept: the next read fetches it again rather than rethrow forever.
        drop();
        if (done > 0) {
          break;
        }
        throw e;
      }
      int n = Math.min(len - done, (int) (head.offset + got - at));
      head.buf.getBytes((int) (at - head.offset), dst.slice(dst.position() + done, n));
      done += n;
      at += n;
      if (at >= head.offset + head.length) {
        chunks.pollFirst().buf.release();
        if (window < maxWindow) {
          window *= 2;
        }
      }
    }
    return done;
  }

  /** Bytes at {@code pos} readable without waiting. */
  int available(long pos) {
    Chunk head = chunks.peekFirst();
    if (head == null
        || !head.covers(pos)
        || !head.done.isDone()
        || head.done.isCompletedExceptionally()) {
      return 0;
    }
    return (int) Math.max(0, head.offset + head.done.join() - pos);
  }

  /** Drops every chunk (each chunk's buffer is released once its request ends). */
  void drop() {
    for (Chunk c : chunks) {
      Futures.onDone(c.done, (n, e) -> c.buf.release());
    }
    chunks.clear();
  }

  /**
   * A reader that jumped forward into a chunk already in flight (a kernel sending read-ahead
   * requests out of order) keeps its read-ahead: only the chunks before it go. False if no chunk
   * holds {@code pos}.
   */
  private boolean skipAheadTo(long pos) {
    if (chunks.stream().noneMatch(c -> c.covers(pos))) {
      return false;
    }
    while (!chunks.peekFirst().covers(pos)) {
      Chunk c = chunks.pollFirst();
      Futures.onDone(c.done, (n, e) -> c.buf.release());
    }
    return true;
  }

  /** Drops every chunk; sequential reading keeps its window, a jump starts it at one again. */
  private void restartAt(long pos, boolean sequential) {
    drop();
    nextFetch = pos;
    if (!sequential) {
      window = 1;
    }
  }

  /** Keeps {@code window} chunks in flight ahead of the position. */
  private void fill() {
    while (chunks.size() < window && nextFetch < file.length()) {
      int length = (int) Math.min(chunkSize, file.length() - nextFetch);
      ByteBuf buf = allocator.compositeDirectBuffer(FileInStream.MAX_COMPONENTS);
      CompletableFuture<Integer> f;
      try {
        f = source.readAsync(file, nextFetch, buf, length);
      } catch (RuntimeException e) {
        buf.release();
        throw e;
      }
      chunks.addLast(new Chunk(nextFetch, length, buf, f));
      nextFetch += length;
    }
  }

  /** The chunk's byte count; a chunk cut short before the end of the file is a failed chunk. */
  private int awaitWhole(Chunk c) {
    int got;
    try {
      got = c.done.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof StrataException s
          ? s
          : StrataException.internal("read failed: " + e.getCause(), e.getCause());
    }
    if (got < c.length) {
      throw new StrataException(
          StatusCode.INTERNAL, file.path() + " ended early at " + (c.offset + got));
    }
    return got;
  }
}
