package io.strata.client.data;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Response;
import java.nio.ByteBuffer;
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
final class SocketStreamReader implements StreamReader {
  static final int MIN_REQUEST = 4096;
  static final int MAX_REQUEST = 4 << 20;

  /**
   * A jump forward within this many bytes already asked for reads through them instead of starting
   * over.
   */
  static final int MAX_SKIP = 1 << 20;

  /**
   * Closing with at most this many bytes still coming reads them off, keeping the connection for
   * the pool.
   */
  private static final int MAX_DRAIN = 64 << 10;

  /** One READ sent and not yet ended. */
  private static final class Asked {
    final long id;
    final long end;

    Asked(long id, long end) {
      this.id = id;
      this.end = end;
    }
  }

  /** Where skipped bytes are read to. */
  private static final ThreadLocal<ByteBuffer> SCRATCH =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(64 << 10));

  private final BlockingChannels channels;
  private final Endpoint worker;
  private final DataClient.Target file;
  private final long maxWindow;

  /** Where the stream stops asking: the end of the file, or of a single read. */
  private final long limit;

  private final ArrayDeque<Asked> pending = new ArrayDeque<>();
  private DataConnection conn;
  private long nextId;
  private long position;
  private long requested;
  private long window;
  private boolean spent;

  SocketStreamReader(
      BlockingChannels channels,
      Endpoint worker,
      DataClient.Target file,
      long offset,
      long maxWindow) {
    this(channels, worker, file, offset, file.fileLength(), maxWindow);
  }

  /** A stream that ends at {@code end} (or the file's end, if sooner). */
  SocketStreamReader(
      BlockingChannels channels,
      Endpoint worker,
      DataClient.Target file,
      long offset,
      long end,
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
      throw new StrataException(
          StatusCode.INTERNAL, "read of " + file.path() + " after the stream failed");
    }
    if (len == 0 || position >= limit) {
      return 0;
    }
    try {
      if (conn == null) {
        conn = DataConnection.take(channels, worker, file.path());
        window = Math.min(maxWindow, Math.max(MIN_REQUEST, Math.min(len, MAX_REQUEST)));
      }
      try {
        return readSomePayload(dst);
      } catch (StrataException e) {
        if (!conn.staleFromPool(e)) {
          throw e;
        }
        pending.clear();
        requested = position;
        conn.reconnect();
        return readSomePayload(dst);
      }
    } catch (StrataException e) {
      spent = true;
      dropConnection();
      throw e;
    }
  }

  private int readSomePayload(ByteBuffer dst) {
    askAhead();
    while (conn.payloadLeft() == 0) {
      nextFrame();
      askAhead();
    }
    int n = conn.readPayload(dst);
    position += n;
    return n;
  }

  /**
   * Keeps {@code window} bytes asked for ahead of the position, in requests of at most MAX_REQUEST.
   */
  private void askAhead() {
    long end = limit;
    while (requested < end) {
      long room = window - (requested - position);
      // Ask in sizeable pieces, not a sliver each time a few bytes are taken; but soon enough that
      // a cold stream keeps most of its window in flight to the under-storage (a quarter: 1 MiB,
      // a page, of the default 4 MiB).
      if (room <= 0 || (requested > position && room < Math.min(window, MAX_REQUEST) / 4)) {
        return;
      }
      long n = Math.min(Math.min(room, MAX_REQUEST), end - requested);
      send(requested, n);
      requested += n;
    }
  }

  private void send(long offset, long length) {
    long id = ++nextId;
    conn.send(
        new ReadRequest(id, file.path(), file.fingerprint(), file.fileLength(), offset, length)
            .encode(DataConnection.REQUESTS));
    pending.add(new Asked(id, offset + length));
  }

  /** Reads one frame header (and the whole of a frame that carries no file bytes). */
  private void nextFrame() {
    Asked head = pending.peek();
    if (head == null) {
      throw DataConnection.protocol(
          "a frame read with no request of " + file.path() + " in flight");
    }
    Response r = conn.next(head.id);
    if (r instanceof Response.Data d) {
      if (d.offset() != position || position + d.length() > head.end) {
        throw DataConnection.protocol(
            "worker sent bytes out of order ("
                + d.length()
                + " at "
                + d.offset()
                + ", expected "
                + position
                + ")");
      }
    } else if (r instanceof Response.End e) {
      pending.poll();
      if (!e.ok()) {
        throw new StrataException(e.code(), e.message());
      }
      if (position != head.end) {
        throw DataConnection.protocol(file.path() + " ended early at " + position);
      }
      window = Math.min(maxWindow, window * 2);
    } else {
      throw DataConnection.protocol("unexpected " + r + " from worker");
    }
  }

  /**
   * False also when the worker fails meanwhile: the caller then opens another stream, whose failure
   * it handles.
   */
  @Override
  public boolean skipTo(long pos) {
    if (spent || conn == null || pos < position || pos > requested || pos - position > MAX_SKIP) {
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
        while (conn.payloadLeft() == 0) {
          nextFrame();
        }
        scratch.clear().limit((int) Math.min(scratch.capacity(), left));
        int got = conn.readPayload(scratch);
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
  public void close() {
    if (conn == null) {
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
    if (!spent && pending.isEmpty() && conn.payloadLeft() == 0) {
      conn.release();
      conn = null;
    } else {
      dropConnection();
    }
  }

  private void dropConnection() {
    if (conn != null) {
      conn.close();
      conn = null;
    }
  }
}
