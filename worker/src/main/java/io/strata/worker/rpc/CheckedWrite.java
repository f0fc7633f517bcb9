package io.strata.worker.rpc;

import io.grpc.stub.StreamObserver;
import io.strata.core.proto.WriteHeader;
import io.strata.core.proto.WriteRequest;
import io.strata.core.proto.WriteResponse;
import io.strata.core.rpc.Rpc;
import java.util.function.UnaryOperator;

/**
 * A write whose header is checked (the caller's permissions) before the session sees it: a refused
 * write fails at once, and nothing reaches the under-storage. The check may give the header what
 * the worker decides for the caller (the new file's owner).
 */
final class CheckedWrite implements StreamObserver<WriteRequest> {
  private final StreamObserver<WriteRequest> session;
  private final StreamObserver<WriteResponse> out;
  private final UnaryOperator<WriteHeader> check;
  private boolean refused;

  CheckedWrite(
      StreamObserver<WriteRequest> session,
      StreamObserver<WriteResponse> out,
      UnaryOperator<WriteHeader> check) {
    this.session = session;
    this.out = out;
    this.check = check;
  }

  @Override
  public void onNext(WriteRequest req) {
    if (refused) {
      return;
    }
    if (req.hasHeader()) {
      try {
        req = req.toBuilder().setHeader(check.apply(req.getHeader())).build();
      } catch (RuntimeException e) {
        refused = true;
        Rpc.fail(out, "write", e);
        return;
      }
    }
    session.onNext(req);
  }

  @Override
  public void onError(Throwable t) {
    if (!refused) {
      session.onError(t);
    }
  }

  @Override
  public void onCompleted() {
    if (!refused) {
      session.onCompleted();
    }
  }
}
