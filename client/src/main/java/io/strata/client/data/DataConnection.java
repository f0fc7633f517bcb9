package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.MalformedFrameException;
import io.strata.core.transport.Response;
import io.strata.core.transport.ResponseDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedByInterruptException;

/**
 * One blocking connection to a worker's data server, used by one caller on its own thread: request
 * frames go out, and the worker's answers are read through a {@link ResponseDecoder} fed exactly
 * the bytes it needs ({@link #next}), never a byte of the next frame; DATA payloads go from the
 * socket straight into the caller's buffer ({@link #readPayload}). While a read blocks, the pool's
 * watchdog may close the connection once the read timeout passes ({@link #expire}), which ends the
 * read with DEADLINE_EXCEEDED. It goes back to the pool ({@link #release}) only with nothing in
 * flight.
 */
final class DataConnection implements BlockingChannels.Watched {
  /**
   * Frame headers and small bodies land here. Per thread, not per connection: a connection may
   * serve a single small read, and a direct buffer of its own would cost more than the read. The
   * decoder takes what is read here before the next read, so connections sharing a thread never see
   * each other's bytes.
   */
  private static final ThreadLocal<ByteBuf> SCRATCH =
      ThreadLocal.withInitial(() -> Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(4096)));

  /**
   * Requests are small: encoded on the heap, where the socket write's own buffer copies them from.
   */
  static final UnpooledByteBufAllocator REQUESTS = new UnpooledByteBufAllocator(false);

  private final BlockingChannels channels;
  private final Endpoint worker;

  /** The file the connection is taken for, named in its errors. */
  private final String path;

  private ByteChannel ch;

  /** The connection came from the pool and has not answered yet. */
  private boolean reused;

  private volatile long blockedSince;
  private volatile boolean expired;
  private ResponseDecoder decoder = new ResponseDecoder();

  private DataConnection(
      BlockingChannels channels, Endpoint worker, String path, ByteChannel ch, boolean reused) {
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
    ByteChannel pooled = channels.pooled(worker);
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
    decoder = new ResponseDecoder();
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
   * The next frame of the answer to request {@code expectedId}; for DATA, its header (the payload
   * is then read with {@link #readPayload}).
   */
  Response next(long expectedId) {
    ByteBuf scratch = SCRATCH.get();
    while (true) {
      int n = Math.min(decoder.needed(), scratch.capacity());
      scratch.clear();
      readFully(scratch.internalNioBuffer(0, n));
      scratch.writerIndex(n);
      Response r;
      try {
        r = decoder.next(scratch);
      } catch (MalformedFrameException e) {
        throw protocol(e.getMessage());
      }
      if (r != null) {
        if (r.requestId() != expectedId) {
          throw protocol("worker answered request " + r.requestId() + " unasked");
        }
        return r;
      }
    }
  }

  /** Bytes of the current DATA payload not yet read. */
  int payloadLeft() {
    return decoder.payloadLeft();
  }

  /** Reads some of the current DATA payload (at least a byte) into {@code dst}. */
  int readPayload(ByteBuffer dst) {
    int at = dst.position();
    int n = readSome(dst.slice(at, Math.min(dst.remaining(), decoder.payloadLeft())));
    dst.position(at + n);
    decoder.payloadTaken(n);
    return n;
  }

  /** Reads the current DATA payload's next {@code dst.remaining()} bytes. */
  void readPayloadFully(ByteBuffer dst) {
    if (dst.remaining() > decoder.payloadLeft()) {
      throw new IllegalArgumentException(dst.remaining() + " bytes wanted of " + payloadLeft());
    }
    while (dst.hasRemaining()) {
      readPayload(dst);
    }
  }

  /** Reads until {@code dst} is full. */
  private void readFully(ByteBuffer dst) {
    while (dst.hasRemaining()) {
      readSome(dst);
    }
  }

  /** One socket read (at least a byte), under the watchdog's eye. */
  private int readSome(ByteBuffer dst) {
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
