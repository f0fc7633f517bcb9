package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * READ: {@code length} bytes at {@code offset} of the file at {@code path}, in the version the
 * client saw ({@code fingerprint}, {@code fileLength}); at most {@link Frames#MAX_READ_LENGTH}. The
 * server never answers with bytes of another version. Answered by DATA frames in offset order and
 * an END.
 */
public record ReadRequest(
    long requestId, String path, String fingerprint, long fileLength, long offset, long length)
    implements Request {

  @Override
  public ByteBuf encode(ByteBufAllocator alloc) {
    return new FileRange(requestId, path, fingerprint, fileLength, offset, length)
        .encode(alloc, Frames.READ);
  }

  @Override
  public void dispatch(Handler handler) {
    handler.read(this);
  }

  /** Decodes a frame whose length field was stripped; throws MalformedFrameException. */
  public static ReadRequest decode(ByteBuf frame) {
    FileRange r = FileRange.decode(frame, Frames.READ, Frames.MAX_READ_LENGTH);
    return new ReadRequest(
        r.requestId(), r.path(), r.fingerprint(), r.fileLength(), r.offset(), r.length());
  }
}
