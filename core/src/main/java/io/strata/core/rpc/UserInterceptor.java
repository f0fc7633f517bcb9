package io.strata.core.rpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/** Sends the OS user running the client with every call, for the audit log. */
final class UserInterceptor implements ClientInterceptor {
  static final Metadata.Key<String> USER =
      Metadata.Key.of("strata-user", Metadata.ASCII_STRING_MARSHALLER);
  private static final String NAME = System.getProperty("user.name", "unknown");

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        headers.put(USER, NAME);
        super.start(listener, headers);
      }
    };
  }
}
