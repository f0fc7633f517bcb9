package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.LeaseGrant;
import io.strata.core.transport.LeaseRequest;

/** A LEASE in flight: completes with the worker's grant. */
final class LeaseCall extends Call<LeaseGrant> {
  private final long offset;
  private final long length;
  private LeaseGrant grant;

  LeaseCall(long requestId, long offset, long length) {
    super(requestId);
    this.offset = offset;
    this.length = length;
  }

  @Override
  ByteBuf request(DataClient.Target file, ByteBufAllocator alloc) {
    return new LeaseRequest(
            requestId, file.path(), file.fingerprint(), file.fileLength(), offset, length)
        .encode(alloc);
  }

  @Override
  void leased(LeaseGrant g) {
    if (grant != null) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent two leases for one request");
    }
    grant = g;
  }

  @Override
  void end(StatusCode code, String message) {
    if (code != StatusCode.OK) {
      done.completeExceptionally(new StrataException(code, message));
    } else if (grant == null) {
      done.completeExceptionally(
          new StrataException(StatusCode.INTERNAL, "worker ended a lease request with no lease"));
    } else {
      done.complete(grant);
    }
  }
}
