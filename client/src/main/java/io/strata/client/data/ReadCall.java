package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.concurrent.CompletableFuture;

/**
 * One READ in flight: where its bytes go and how many arrived. DATA frames must arrive in offset
 * order without gaps; anything else fails the call. Completed on the connection's event loop.
 */
final class ReadCall {
  final long requestId;
  private final long offset;
  private final byte[] dst;
  private final int dstOffset;
  private final int length;
  private int received;
  final CompletableFuture<Integer> done = new CompletableFuture<>();

  ReadCall(long requestId, long offset, byte[] dst, int dstOffset, int length) {
    this.requestId = requestId;
    this.offset = offset;
    this.dst = dst;
    this.dstOffset = dstOffset;
    this.length = length;
  }

  /** Copies one DATA payload that starts at file offset {@code at}. */
  void data(long at, ByteBuf payload) {
    int n = payload.readableBytes();
    if (at != offset + received || received + n > length) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent bytes out of order (at " + at + ", expected "
          + (offset + received) + ")");
    }
    payload.readBytes(dst, dstOffset + received, n);
    received += n;
  }

  void end(StatusCode code, String message) {
    if (code == StatusCode.OK) {
      done.complete(received);
    } else {
      done.completeExceptionally(new StrataException(code, message));
    }
  }

  void fail(StrataException e) {
    done.completeExceptionally(e);
  }
}
