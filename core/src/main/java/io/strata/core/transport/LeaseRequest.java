package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * LEASE: where the pages of a range of one version of a file lie on the worker's disk, for a client
 * on the same host that reads them itself (see {@link LeaseGrant}). Same body as READ; the range
 * may be any length, the grant itself being bounded. Workers grant it over their domain socket
 * only. Answered by one LEASED frame and an END.
 */
public record LeaseRequest(
    long requestId, String path, String fingerprint, long fileLength, long offset, long length)
    implements Request {

  @Override
  public ByteBuf encode(ByteBufAllocator alloc) {
    return new FileRange(requestId, path, fingerprint, fileLength, offset, length)
        .encode(alloc, Frames.LEASE);
  }

  @Override
  public void dispatch(Handler handler) {
    handler.lease(this);
  }

  /** Decodes a frame whose length field was stripped; throws MalformedFrameException. */
  public static LeaseRequest decode(ByteBuf frame) {
    FileRange r = FileRange.decode(frame, Frames.LEASE, Long.MAX_VALUE);
    return new LeaseRequest(
        r.requestId(), r.path(), r.fingerprint(), r.fileLength(), r.offset(), r.length());
  }
}
