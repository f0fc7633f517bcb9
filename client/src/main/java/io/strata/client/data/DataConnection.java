package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One blocking connection to a worker's data server, used by one caller on its own thread: request
 * frames go out, response frames are read straight from the socket, a header at a time ({@link
 * #nextFrame}) and then their bodies. While a read blocks, the pool's watchdog may close the
 * connection once the read timeout passes ({@link #expire}), which ends the read with
 * DEADLINE_EXCEEDED. It goes back to the pool ({@link #release}) only with nothing in flight.
 */
final class DataConnection implements BlockingChannels.Watched {
  private static final int PREFIX = 4 + Frames.HEADER;
  private static final int MAX_END_BODY = 1 + 2 + 1024;

  /**
   * Frame headers land here. Per thread, not per connection: a connection may serve a single small
   * read, and a direct buffer of its own would cost more than the read. A header is read whole
   * within one call, so connections sharing a thread never see each other's bytes.
   */
  private static final ThreadLocal<ByteBuffer> HEADERS =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(PREFIX + MAX_END_BODY));

  /**
   * Requests are small: encoded on the heap, where the socket write's own buffer copies them from.
   */
  static final UnpooledByteBufAllocator REQUESTS = new UnpooledByteBufAllocator(false);

  private final BlockingChannels channels;
  private final Endpoint worker;

  /** The file the connection is taken for, named in its errors. */
  private final String path;

  private SocketChannel ch;

  /** The connection came from the pool and has not answered yet. */
  private boolean reused;

  private volatile long blockedSince;
  private volatile boolean expired;
  private byte frameType;
  private int frameBody;

  private DataConnection(
      BlockingChannels channels, Endpoint worker, String path, SocketChannel ch, boolean reused) {
    this.channels = channels;
    this.worker = worker;
    this.path = path;
    this.ch = ch;
    this.reused = reused;
    channels.watch(this);
  }

  /**
   * A pooled connection to {@code worker}, else a new one, to ask about {@code path}; UNAVAILABLE
   * if it cannot be reached.
   */
  static DataConnection take(BlockingChannels channels, Endpoint worker, String path) {
    SocketChannel pooled = channels.pooled(worker);
    return new DataConnection(
        channels, worker, path, pooled != null ? pooled : channels.open(worker), pooled != null);
  }

  /**
   * Whether {@code e} is a pooled connection found closed by the worker while it sat idle (a
   * restart): the caller then asks again once on a new connection ({@link #reconnect}).
   */
  boolean staleFromPool(StrataException e) {
    return reused && e.code() == StatusCode.UNAVAILABLE;
  }

  /** A new connection in place of this one, which is closed. */
  void reconnect() {
    BlockingChannels.closeQuietly(ch);
    ch = channels.open(worker);
    reused = false;
    expired = false;
  }

  /** Writes a request frame whole and releases it. */
  void send(ByteBuf frame) {
    try {
      ByteBuffer bytes = frame.nioBuffer();
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
    } catch (IOException e) {
      throw failure("cannot send to worker " + worker, e);
    } finally {
      frame.release();
    }
  }

  /**
   * Reads the next frame's header, which must answer request {@code expectedId}: then {@link
   * #frameType} and {@link #frameBody} tell it.
   */
  void nextFrame(long expectedId) {
    ByteBuffer header = fill(PREFIX);
    int length = header.getInt();
    frameType = header.get();
    long requestId = header.getLong();
    if (requestId != expectedId) {
      throw protocol("worker answered request " + requestId + " unasked");
    }
    if (length < Frames.HEADER || length > Frames.MAX_RESPONSE_FRAME - 4) {
      throw protocol("response frame of " + length + " bytes");
    }
    frameBody = length - Frames.HEADER;
  }

  byte frameType() {
    return frameType;
  }

  /** Bytes of the current frame after its header. */
  int frameBody() {
    return frameBody;
  }

  /** Reads an END frame's body: null if it says OK, else the worker's error. */
  StrataException endStatus() {
    if (frameBody < 3 || frameBody > MAX_END_BODY) {
      throw protocol("END frame of " + frameBody + " bytes");
    }
    ByteBuffer body = fill(frameBody);
    StatusCode code = StatusCode.fromNumber(body.get() & 0xFF);
    byte[] message = new byte[Math.min(body.getShort() & 0xFFFF, body.remaining())];
    body.get(message);
    return code == StatusCode.OK
        ? null
        : new StrataException(code, new String(message, StandardCharsets.UTF_8));
  }

  /**
   * The next {@code n} bytes of the stream (at most a header or an END body), in this thread's
   * buffer.
   */
  ByteBuffer fill(int n) {
    ByteBuffer header = HEADERS.get();
    header.clear().limit(n);
    readFully(header);
    return header.flip();
  }

  /** Reads until {@code dst} is full. */
  void readFully(ByteBuffer dst) {
    while (dst.hasRemaining()) {
      readSome(dst);
    }
  }

  /** One socket read (at least a byte), under the watchdog's eye. */
  int readSome(ByteBuffer dst) {
    blockedSince = System.nanoTime() | 1;
    try {
      int n = ch.read(dst);
      if (n < 0) {
        throw StrataException.unavailable("worker " + worker + " closed the data connection", null);
      }
      reused = false;
      return n;
    } catch (IOException e) {
      throw failure("reading from worker " + worker + " failed", e);
    } finally {
      synchronized (this) {
        blockedSince = 0;
      }
    }
  }

  /** Back to the pool: only with nothing in flight on it. */
  void release() {
    channels.unwatch(this);
    channels.give(worker, ch);
  }

  void close() {
    channels.unwatch(this);
    BlockingChannels.closeQuietly(ch);
  }

  @Override
  public long blockedSinceNanos() {
    return blockedSince;
  }

  /**
   * Only while the read that blocked since {@code since} still blocks (the lock orders this against
   * the read's return): never a later read, nor a connection back in the pool.
   */
  @Override
  public synchronized void expire(long since) {
    if (blockedSince == since) {
      expired = true;
      BlockingChannels.closeQuietly(ch);
    }
  }

  private StrataException failure(String what, IOException e) {
    if (e instanceof ClosedByInterruptException) {
      return BlockingChannels.interrupted(worker);
    }
    if (expired) {
      return new StrataException(
          StatusCode.DEADLINE_EXCEEDED,
          "worker "
              + worker
              + " did not answer a request for "
              + path
              + " within "
              + channels.timeout().toMillis()
              + " ms");
    }
    return StrataException.unavailable(what + ": " + e.getMessage(), e);
  }

  static StrataException protocol(String message) {
    return new StrataException(StatusCode.INTERNAL, "bad response from worker: " + message);
  }
}
