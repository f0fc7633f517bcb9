package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StrataException;
import io.strata.core.transport.OpenRequest;
import io.strata.core.transport.Response;

/**
 * One OPEN over a pooled blocking connection, on the caller's thread: the STATUS frame, then the
 * file's first bytes, then END. No event loop stands between the socket and the caller, so a status
 * costs what a small positioned read does (a Netty round trip added two thread switches). The first
 * bytes land in one buffer of their exact size, appended to the caller's buffer (a composite takes
 * it as a component: no further copy). A worker's refusal (NOT_FOUND...) leaves the connection
 * clean for the pool; anything else closes it.
 */
final class SocketOpen {
  private final DataConnection conn;
  private final long requestId;
  private final String path;
  private FileStatus status;
  private ByteBuf bytes;
  private int received;
  private boolean ended;

  private SocketOpen(DataConnection conn, long requestId, String path) {
    this.conn = conn;
    this.requestId = requestId;
    this.path = path;
  }

  /**
   * The status of {@code path} and up to {@code firstBytes} of its first bytes, appended to {@code
   * dst}.
   */
  static Opened open(
      BlockingChannels channels,
      Endpoint worker,
      long requestId,
      String path,
      long syncIntervalMs,
      int firstBytes,
      ByteBuf dst,
      ByteBufAllocator alloc) {
    OpenRequest request = new OpenRequest(requestId, path, syncIntervalMs, firstBytes);
    DataConnection conn = DataConnection.take(channels, worker, path);
    SocketOpen open = new SocketOpen(conn, requestId, path);
    try {
      try {
        open.exchange(request, firstBytes, alloc);
      } catch (StrataException e) {
        if (!conn.staleFromPool(e)) {
          throw e;
        }
        conn.reconnect();
        open.exchange(request, firstBytes, alloc);
      }
      open.appendTo(dst);
      return new Opened(open.status, open.received);
    } finally {
      open.releaseBytes();
      if (open.ended) {
        conn.release();
      } else {
        conn.close();
      }
    }
  }

  private void exchange(OpenRequest request, int firstBytes, ByteBufAllocator alloc) {
    conn.send(request.encode(DataConnection.REQUESTS));
    while (true) {
      Response r = conn.next(requestId);
      if (r instanceof Response.Status s) {
        if (status != null) {
          throw DataConnection.protocol("two statuses for one open");
        }
        status = s.status();
      } else if (r instanceof Response.Data d) {
        readData(d, firstBytes, alloc);
      } else if (r instanceof Response.End e) {
        if (e.ok() && status == null) {
          throw DataConnection.protocol("an open of " + path + " ended with no status");
        }
        ended = true;
        if (!e.ok()) {
          throw new StrataException(e.code(), e.message());
        }
        return;
      } else {
        throw DataConnection.protocol("unexpected " + r + " for an open");
      }
    }
  }

  private void readData(Response.Data d, int firstBytes, ByteBufAllocator alloc) {
    if (status == null) {
      throw DataConnection.protocol("bytes before the status");
    }
    int n = d.length();
    int expected = (int) Math.min(firstBytes, status.getLength());
    if (d.offset() != received || received + n > expected) {
      throw DataConnection.protocol(
          n
              + " bytes at "
              + d.offset()
              + " of "
              + path
              + " (expected at most "
              + (expected - received)
              + " at "
              + received
              + ")");
    }
    if (bytes == null) {
      bytes = alloc.directBuffer(expected, expected);
    }
    conn.readPayloadFully(bytes.nioBuffer(bytes.writerIndex(), n));
    bytes.writerIndex(bytes.writerIndex() + n);
    received += n;
  }

  private void appendTo(ByteBuf dst) {
    if (bytes == null) {
      return;
    }
    if (dst instanceof CompositeByteBuf composite) {
      composite.addComponent(true, bytes);
    } else {
      dst.writeBytes(bytes);
      bytes.release();
    }
    bytes = null;
  }

  private void releaseBytes() {
    if (bytes != null) {
      bytes.release();
      bytes = null;
    }
  }
}
