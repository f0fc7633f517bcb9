package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * READ: {@code length} bytes at {@code offset} of the file at {@code path}, in the version the
 * client saw ({@code fingerprint}, {@code fileLength}). The server never answers with bytes of
 * another version. Body: path (uint16 length + UTF-8), fingerprint (same), int64 fileLength, int64
 * offset, int64 length.
 *
 * <p>LEASE has the same body and asks instead where the range's pages lie on the worker's disk (see
 * {@link LeaseGrant}); workers grant it over their domain socket only.
 */
public record ReadRequest(
    long requestId,
    String path,
    String fingerprint,
    long fileLength,
    long offset,
    long length,
    boolean lease) {

  public ReadRequest(
      long requestId, String path, String fingerprint, long fileLength, long offset, long length) {
    this(requestId, path, fingerprint, fileLength, offset, length, false);
  }

  public ByteBuf encode(ByteBufAllocator alloc) {
    ByteBuf b = alloc.buffer(64 + path.length() * 3 + fingerprint.length());
    b.writeInt(0).writeByte(lease ? Frames.LEASE : Frames.READ).writeLong(requestId);
    Frames.writeString(b, path);
    Frames.writeString(b, fingerprint);
    b.writeLong(fileLength).writeLong(offset).writeLong(length);
    b.setInt(0, b.readableBytes() - 4);
    return b;
  }

  /** Decodes a frame whose length field was stripped; throws MalformedFrameException. */
  public static ReadRequest decode(ByteBuf frame) {
    Frames.need(frame, Frames.HEADER);
    byte type = frame.readByte();
    if (type != Frames.READ && type != Frames.LEASE) {
      throw new MalformedFrameException("unexpected frame type " + type);
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
    // A lease may name any span: the grant itself is bounded (LeaseGrant.MAX_PAGES).
    long maxLength = type == Frames.LEASE ? Long.MAX_VALUE : Frames.MAX_READ_LENGTH;
    if (fileLength < 0 || offset < 0 || length < 0 || length > maxLength) {
      throw new MalformedFrameException(
          "READ out of bounds: file length "
              + fileLength
              + ", offset "
              + offset
              + ", length "
              + length);
    }
    return new ReadRequest(
        requestId, path, fingerprint, fileLength, offset, length, type == Frames.LEASE);
  }
}
