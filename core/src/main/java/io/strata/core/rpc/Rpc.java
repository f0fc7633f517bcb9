package io.strata.core.rpc;

import io.grpc.stub.StreamObserver;
import io.strata.core.status.StrataException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a unary gRPC handler: its result or its error, mapped once, goes to the observer. */
public final class Rpc {
  private static final Logger LOG = LoggerFactory.getLogger(Rpc.class);

  private Rpc() {}

  public static <T> void unary(StreamObserver<T> observer, String method, Supplier<T> handler) {
    T result;
    try {
      result = handler.get();
    } catch (Throwable t) {
      fail(observer, method, t);
      return;
    }
    observer.onNext(result);
    observer.onCompleted();
  }

  /** Ends a call with {@code t}; unexpected (non-Strata) errors are logged with their stack. */
  public static void fail(StreamObserver<?> observer, String method, Throwable t) {
    if (!(t instanceof StrataException)) {
      LOG.error("{} failed unexpectedly", method, t);
    }
    observer.onError(GrpcErrors.toGrpc(t));
  }
}
