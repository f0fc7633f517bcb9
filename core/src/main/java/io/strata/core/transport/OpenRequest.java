package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * OPEN: the current status of the file at {@code path} and its first {@code firstBytes} bytes, in
 * one answer (STATUS, DATA..., END). {@code syncIntervalMs} is the client's metadata sync interval
 * (-1: trust the worker's TTL). Body: path (uint16 length + UTF-8), int64 syncIntervalMs, int64
 * firstBytes.
 */
public record OpenRequest(long requestId, String path, long syncIntervalMs, long firstBytes)
    implements Request {

  @Override
  public ByteBuf encode(ByteBufAllocator alloc) {
    ByteBuf b = alloc.buffer(32 + path.length() * 3);
    b.writeInt(0).writeByte(Frames.OPEN).writeLong(requestId);
    Frames.writeString(b, path);
    b.writeLong(syncIntervalMs).writeLong(firstBytes);
    b.setInt(0, b.readableBytes() - 4);
    return b;
  }

  @Override
  public void dispatch(Handler handler) {
    handler.open(this);
  }

  /** Decodes a frame whose length field was stripped; throws MalformedFrameException. */
  public static OpenRequest decode(ByteBuf frame) {
    Frames.need(frame, Frames.HEADER);
    if (frame.readByte() != Frames.OPEN) {
      throw new MalformedFrameException("not an OPEN frame");
    }
    long requestId = frame.readLong();
    String path = Frames.readString(frame);
    Frames.need(frame, 16);
    long syncIntervalMs = frame.readLong();
    long firstBytes = frame.readLong();
    if (frame.isReadable()) {
      throw new MalformedFrameException("trailing bytes after a request");
    }
    if (syncIntervalMs < -1 || firstBytes < 0 || firstBytes > Frames.MAX_READ_LENGTH) {
      throw new MalformedFrameException(
          "OPEN out of bounds: sync interval " + syncIntervalMs + ", first bytes " + firstBytes);
    }
    return new OpenRequest(requestId, path, syncIntervalMs, firstBytes);
  }
}
