package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.LeaseGrant;
import java.util.concurrent.CompletableFuture;

/**
 * One request in flight on a data connection and what becomes of its answer. The frames a kind of
 * call does not expect fail it (and close the connection). Touched only by its connection's event
 * loop once sent.
 */
abstract class Call<T> {
  final long requestId;
  final CompletableFuture<T> done = new CompletableFuture<>();

  Call(long requestId) {
    this.requestId = requestId;
  }

  /** The request frame for this call on {@code file}. */
  abstract ByteBuf request(DataClient.Target file, ByteBufAllocator alloc);

  /** Where the next DATA byte belongs in the file. */
  long expectedOffset() {
    throw unexpected("DATA");
  }

  /** Takes {@code n} DATA payload bytes from {@code in}. */
  void data(ByteBuf in, int n) {
    throw unexpected("DATA");
  }

  void leased(LeaseGrant grant) {
    throw unexpected("LEASED");
  }

  /**
   * The END frame: completes the call with what it gathered, or fails it with the worker's error.
   */
  abstract void end(StatusCode code, String message);

  void fail(StrataException e) {
    done.completeExceptionally(e);
  }

  private static StrataException unexpected(String frame) {
    return new StrataException(
        StatusCode.INTERNAL, "worker sent an unexpected " + frame + " frame");
  }
}
