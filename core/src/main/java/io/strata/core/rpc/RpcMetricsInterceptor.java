package io.strata.core.rpc;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** Counts and times every gRPC call a server handles, by method and outcome. */
public final class RpcMetricsInterceptor implements ServerInterceptor {
  public static final String RPC_SERVER = "strata.rpc.server";

  private final MeterRegistry registry;
  private final LongSupplier nanoTime;

  public RpcMetricsInterceptor(MeterRegistry registry, LongSupplier nanoTime) {
    this.registry = registry;
    this.nanoTime = nanoTime;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    long start = nanoTime.getAsLong();
    String method = call.getMethodDescriptor().getBareMethodName();
    return next.startCall(
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            String code = trailers.get(GrpcErrors.CODE);
            Timer.builder(RPC_SERVER)
                .description("gRPC calls served, by method and outcome")
                .tag("method", method)
                .tag("status", code != null ? code : status.getCode().name())
                .register(registry)
                .record(nanoTime.getAsLong() - start, TimeUnit.NANOSECONDS);
            super.close(status, trailers);
          }
        },
        headers);
  }
}
