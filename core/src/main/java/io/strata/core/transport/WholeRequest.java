package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * WHOLE: keep this version of a file whole on the worker's disk, reading it from the under-storage
 * first if it is not kept whole yet, for a client on the same host that then reads the plain file
 * itself (FUSE passthrough). Same body as READ, the range being the whole file (offset 0, the
 * file's length). Workers take it over their domain socket only. Answered by one END: OK once the
 * version's whole file is sealed, else the reason it is not kept whole (too small, too large, no
 * room, changed in the under-storage).
 */
public record WholeRequest(long requestId, String path, String fingerprint, long fileLength)
    implements Request {

  @Override
  public ByteBuf encode(ByteBufAllocator alloc) {
    return new FileRange(requestId, path, fingerprint, fileLength, 0, fileLength)
        .encode(alloc, Frames.WHOLE);
  }

  @Override
  public void dispatch(Handler handler) {
    handler.whole(this);
  }

  /** Decodes a frame whose length field was stripped; throws MalformedFrameException. */
  public static WholeRequest decode(ByteBuf frame) {
    FileRange r = FileRange.decode(frame, Frames.WHOLE, Long.MAX_VALUE);
    if (r.offset() != 0 || r.length() != r.fileLength()) {
      throw new MalformedFrameException("a WHOLE request names the whole file");
    }
    return new WholeRequest(r.requestId(), r.path(), r.fingerprint(), r.fileLength());
  }
}
