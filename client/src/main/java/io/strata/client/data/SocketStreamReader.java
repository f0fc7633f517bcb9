package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.ReadRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * A sequential reader's own connection to a worker, read on the reader's thread: READ requests go
 * out ahead of the position (the read-ahead is the bytes in flight in the sockets, not buffers of
 * ours), and each DATA payload is read from the socket straight into the caller's array. No event
 * loop stands between the socket and the reader, so a stream costs what a plain socket copy does:
 * the worker's write and one read here (the data plane's Netty client hands every chunk from its
 * event loop to the reader, a thread switch per chunk that halved sequential throughput).
 *
 * <p>The first request asks for what the caller asked for (at least {@value #MIN_REQUEST} bytes),
 * so a reader that reads once and jumps wastes little; each request answered whole doubles how far
 * ahead the stream asks, up to the read-ahead limit.
 */
final class SocketStreamReader implements StreamReader, BlockingChannels.Watched {
  static final int MIN_REQUEST = 4096;
  static final int MAX_REQUEST = 4 << 20;
  /** A jump forward within this many bytes already asked for reads through them instead of starting over. */
  static final int MAX_SKIP = 1 << 20;
  /** Closing with at most this many bytes still coming reads them off, keeping the connection for the pool. */
  private static final int MAX_DRAIN = 64 << 10;
  private static final int PREFIX = 4 + Frames.HEADER;
  private static final int MAX_END_BODY = 1 + 2 + 1024;

  /** One READ sent and not yet ended. */
  private static final class Request {
    final long id;
    final long end;

    Request(long id, long end) {
      this.id = id;
      this.end = end;
    }
  }

  private final BlockingChannels channels;
  private final Endpoint worker;
  private final DataClient.Target file;
  private final long maxWindow;
  /** Where the stream stops asking: the end of the file, or of a single read. */
  private final long limit;
  private final ArrayDeque<Request> pending = new ArrayDeque<>();
  /**
   * Frame headers land here. Per thread, not per reader: a reader may serve a single small read,
   * and a direct buffer of its own would cost more than the read. A frame is always read whole
   * within one call, so readers sharing a thread never see each other's bytes.
   */
  private static final ThreadLocal<ByteBuffer> HEADERS =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(PREFIX + MAX_END_BODY));
  /** Requests are small: encoded on the heap, where the socket write's own buffer copies them from. */
  private static final UnpooledByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);
  private static final ThreadLocal<ByteBuffer> SCRATCH =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(64 << 10));
  private SocketChannel ch;
  private long nextId;
  private long position;
  private long requested;
  private long window;
  private long payloadLeft;
  private boolean spent;
  /** The connection came from the pool and has not answered this reader yet. */
  private boolean reused;
  private volatile long blockedSince;
  private volatile boolean expired;

  SocketStreamReader(BlockingChannels channels, Endpoint worker, DataClient.Target file, long offset, long maxWindow) {
    this(channels, worker, file, offset, file.fileLength(), maxWindow);
  }

  /** A stream that ends at {@code end} (or the file's end, if sooner). */
  SocketStreamReader(BlockingChannels channels, Endpoint worker, DataClient.Target file, long offset, long end,
      long maxWindow) {
    this.channels = channels;
    this.worker = worker;
    this.file = file;
    this.position = offset;
    this.requested = offset;
    this.limit = Math.min(end, file.fileLength());
    this.maxWindow = Math.max(MIN_REQUEST, maxWindow);
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public int read(ByteBuffer dst) {
    int len = dst.remaining();
    if (spent) {
      throw new StrataException(StatusCode.INTERNAL, "read of " + file.path() + " after the stream failed");
    }
    if (len == 0 || position >= limit) {
      return 0;
    }
    try {
      if (ch == null) {
        connect(channels.pooled(worker));
        window = Math.min(maxWindow, Math.max(MIN_REQUEST, Math.min(len, MAX_REQUEST)));
      }
      try {
        return readSomePayload(dst);
      } catch (StrataException e) {
        if (!reused || e.code() != StatusCode.UNAVAILABLE) {
          throw e;
        }
        // A pooled connection the worker closed while it sat idle (it restarted): once more, afresh.
        dropConnection();
        pending.clear();
        requested = position;
        connect(null);
        return readSomePayload(dst);
      }
    } catch (StrataException e) {
      spent = true;
      dropConnection();
      throw e;
    }
  }

  /** Takes {@code pooledOrNull}, or a new connection. */
  private void connect(SocketChannel pooledOrNull) {
    reused = pooledOrNull != null;
    ch = reused ? pooledOrNull : channels.open(worker);
    channels.watch(this);
  }

  private int readSomePayload(ByteBuffer dst) {
    askAhead();
    while (payloadLeft == 0) {
      nextFrame();
      askAhead();
    }
    int at = dst.position();
    int n = readSome(dst.slice(at, (int) Math.min(dst.remaining(), payloadLeft)));
    dst.position(at + n);
    payloadLeft -= n;
    position += n;
    return n;
  }

  /** Keeps {@code window} bytes asked for ahead of the position, in requests of at most MAX_REQUEST. */
  private void askAhead() {
    long end = limit;
    while (requested < end) {
      long room = window - (requested - position);
      // Ask in sizeable pieces, not a sliver each time a few bytes are taken.
      if (room <= 0 || (requested > position && room < Math.min(window, MAX_REQUEST) / 2)) {
        return;
      }
      long n = Math.min(Math.min(room, MAX_REQUEST), end - requested);
      send(requested, n);
      requested += n;
    }
  }

  private void send(long offset, long length) {
    long id = ++nextId;
    ByteBuf frame = new ReadRequest(id, file.path(), file.fingerprint(), file.fileLength(), offset, length)
        .encode(HEAP);
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
    pending.add(new Request(id, offset + length));
  }

  /** Reads one frame header (and the whole of a frame that carries no file bytes). */
  private void nextFrame() {
    ByteBuffer header = fill(PREFIX);
    int frameLength = header.getInt();
    byte type = header.get();
    long requestId = header.getLong();
    Request head = pending.peek();
    if (head == null || requestId != head.id) {
      throw protocol("worker answered request " + requestId + " unasked");
    }
    if (frameLength < Frames.HEADER || frameLength > Frames.MAX_RESPONSE_FRAME - 4) {
      throw protocol("response frame of " + frameLength + " bytes");
    }
    int body = frameLength - Frames.HEADER;
    if (type == Frames.DATA) {
      if (body < 8) {
        throw protocol("DATA frame of " + body + " bytes");
      }
      long at = fill(8).getLong();
      payloadLeft = body - 8;
      if (at != position || position + payloadLeft > head.end) {
        throw protocol("worker sent bytes out of order (" + payloadLeft + " at " + at + ", expected " + position + ")");
      }
    } else if (type == Frames.END) {
      if (body < 3 || body > MAX_END_BODY) {
        throw protocol("END frame of " + body + " bytes");
      }
      header = fill(body);
      StatusCode code = StatusCode.fromNumber(header.get() & 0xFF);
      int n = Math.min(header.getShort() & 0xFFFF, header.remaining());
      byte[] message = new byte[n];
      header.get(message);
      pending.poll();
      if (code != StatusCode.OK) {
        throw new StrataException(code, new String(message, StandardCharsets.UTF_8));
      }
      if (position != head.end) {
        throw protocol(file.path() + " ended early at " + position);
      }
      window = Math.min(maxWindow, window * 2);
    } else {
      throw protocol("unexpected frame type " + type + " from worker");
    }
  }

  /** The next {@code n} bytes of the stream, in this thread's header buffer. */
  private ByteBuffer fill(int n) {
    ByteBuffer header = HEADERS.get();
    header.clear().limit(n);
    while (header.hasRemaining()) {
      readSome(header);
    }
    return header.flip();
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

  /** False also when the worker fails meanwhile: the caller then opens another stream, whose failure it handles. */
  @Override
  public boolean skipTo(long pos) {
    if (spent || ch == null || pos < position || pos > requested || pos - position > MAX_SKIP) {
      return false;
    }
    try {
      discard(pos - position);
      return true;
    } catch (StrataException e) {
      return false;
    }
  }

  private void discard(long n) {
    ByteBuffer scratch = SCRATCH.get();
    long left = n;
    try {
      while (left > 0) {
        while (payloadLeft == 0) {
          nextFrame();
        }
        scratch.clear().limit((int) Math.min(scratch.capacity(), Math.min(left, payloadLeft)));
        int got = readSome(scratch);
        payloadLeft -= got;
        position += got;
        left -= got;
      }
    } catch (StrataException e) {
      spent = true;
      dropConnection();
      throw e;
    }
  }

  @Override
  public long blockedSinceNanos() {
    return blockedSince;
  }

  /** Only while a read blocks (the lock orders this against the read's return): never a connection back in the pool. */
  @Override
  public synchronized void expire() {
    SocketChannel c = ch;
    if (blockedSince != 0 && c != null) {
      expired = true;
      BlockingChannels.closeQuietly(c);
    }
  }

  @Override
  public void close() {
    if (ch == null) {
      return;
    }
    if (!spent && requested - position <= MAX_DRAIN) {
      try {
        discard(requested - position);
        while (!pending.isEmpty()) {
          nextFrame();
        }
      } catch (StrataException e) {
        spent = true;
      }
    }
    if (!spent && pending.isEmpty() && payloadLeft == 0) {
      channels.unwatch(this);
      channels.give(worker, ch);
      ch = null;
    } else {
      dropConnection();
    }
  }

  private void dropConnection() {
    channels.unwatch(this);
    if (ch != null) {
      BlockingChannels.closeQuietly(ch);
      ch = null;
    }
  }

  private StrataException failure(String what, IOException e) {
    if (expired) {
      return new StrataException(StatusCode.DEADLINE_EXCEEDED, "worker " + worker + " did not answer a read of "
          + file.path() + " within " + channels.timeout().toMillis() + " ms");
    }
    return StrataException.unavailable(what + ": " + e.getMessage(), e);
  }

  private static StrataException protocol(String message) {
    return new StrataException(StatusCode.INTERNAL, "bad response from worker: " + message);
  }
}
