package io.strata.client.data;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.OpenRequest;
import java.nio.ByteBuffer;

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
      conn.nextFrame(requestId);
      switch (conn.frameType()) {
        case Frames.STATUS -> readStatus();
        case Frames.DATA -> readData(firstBytes, alloc);
        case Frames.END -> {
          StrataException refused = conn.endStatus();
          if (refused == null && status == null) {
            throw DataConnection.protocol("an open of " + path + " ended with no status");
          }
          ended = true;
          if (refused != null) {
            throw refused;
          }
          return;
        }
        default ->
            throw DataConnection.protocol(
                "unexpected frame type " + conn.frameType() + " for an open");
      }
    }
  }

  private void readStatus() {
    int n = conn.frameBody();
    if (status != null || n > Frames.MAX_STATUS) {
      throw DataConnection.protocol(
          status != null ? "two statuses for one open" : "STATUS frame of " + n + " bytes");
    }
    byte[] body = new byte[n];
    conn.readFully(ByteBuffer.wrap(body));
    try {
      status = FileStatus.parseFrom(body);
    } catch (InvalidProtocolBufferException e) {
      throw DataConnection.protocol("a malformed status: " + e.getMessage());
    }
  }

  private void readData(int firstBytes, ByteBufAllocator alloc) {
    int n = conn.frameBody() - 8;
    if (status == null || n < 0) {
      throw DataConnection.protocol(
          status == null ? "bytes before the status" : "DATA frame of " + (n + 8) + " bytes");
    }
    long at = conn.fill(8).getLong();
    int expected = (int) Math.min(firstBytes, status.getLength());
    if (at != received || received + n > expected) {
      throw DataConnection.protocol(
          n
              + " bytes at "
              + at
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
    conn.readFully(bytes.nioBuffer(bytes.writerIndex(), n));
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
