package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The body READ and LEASE share: a range of one version of a file. Path (uint16 length + UTF-8),
 * fingerprint (same), int64 fileLength, int64 offset, int64 length.
 */
record FileRange(
    long requestId, String path, String fingerprint, long fileLength, long offset, long length) {

  ByteBuf encode(ByteBufAllocator alloc, byte type) {
    ByteBuf b = alloc.buffer(64 + path.length() * 3 + fingerprint.length() * 3);
    b.writeInt(0).writeByte(type).writeLong(requestId);
    Frames.writeString(b, path);
    Frames.writeString(b, fingerprint);
    b.writeLong(fileLength).writeLong(offset).writeLong(length);
    b.setInt(0, b.readableBytes() - 4);
    return b;
  }

  /**
   * Decodes a frame of {@code type} whose length field was stripped; at most {@code maxLength}
   * asked.
   */
  static FileRange decode(ByteBuf frame, byte type, long maxLength) {
    Frames.need(frame, Frames.HEADER);
    byte actual = frame.readByte();
    if (actual != type) {
      throw new MalformedFrameException("unexpected frame type " + actual);
    }
    long requestId = frame.readLong();
    String path = Frames.readString(frame);
    String fingerprint = Frames.readString(frame);
    Frames.need(frame, 24);
    long fileLength = frame.readLong();
    long offset = frame.readLong();
    long length = frame.readLong();
    if (frame.isReadable()) {
      throw new MalformedFrameException("trailing bytes after a request");
    }
    if (fileLength < 0 || offset < 0 || length < 0 || length > maxLength) {
      throw new MalformedFrameException(
          "request out of bounds: file length "
              + fileLength
              + ", offset "
              + offset
              + ", length "
              + length);
    }
    return new FileRange(requestId, path, fingerprint, fileLength, offset, length);
  }
}
