package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.WholeRequest;

/** A WHOLE in flight: completes when the worker has sealed the version whole. */
final class WholeCall extends Call<Void> {
  WholeCall(long requestId) {
    super(requestId);
  }

  @Override
  ByteBuf request(DataClient.Target file, ByteBufAllocator alloc) {
    return new WholeRequest(requestId, file.path(), file.fingerprint(), file.fileLength())
        .encode(alloc);
  }

  @Override
  void end(StatusCode code, String message) {
    if (code != StatusCode.OK) {
      done.completeExceptionally(new StrataException(code, message));
    } else {
      done.complete(null);
    }
  }
}
