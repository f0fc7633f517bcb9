package io.strata.core.rpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.strata.core.security.ActingFor;
import io.strata.core.security.Credentials;

/**
 * Sends who is calling with every call: the token of {@link Credentials}, if any, which TOKEN-mode
 * servers check, and the OS user's name, which NONE-mode servers take on trust for the audit log;
 * and the account the call is made for ({@link ActingFor}), where the calling thread set one.
 */
final class CallerInterceptor implements ClientInterceptor {
  static final Metadata.Key<String> USER =
      Metadata.Key.of("strata-user", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  static final String BEARER = "Bearer ";

  /** The local account a SERVICE caller serves this call for ({@link ActingFor}). */
  static final Metadata.Key<String> ACTING_FOR =
      Metadata.Key.of("strata-acting-for", Metadata.ASCII_STRING_MARSHALLER);

  /** A token this one call carries instead of the channel's (see {@link Channels#actingAs}). */
  static final CallOptions.Key<String> ACTING_AS = CallOptions.Key.create("strata-acting-as");

  private static final String NAME = System.getProperty("user.name", "unknown");

  private final Credentials credentials;

  CallerInterceptor(Credentials credentials) {
    this.credentials = credentials;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        headers.put(USER, NAME);
        String actingAs = options.getOption(ACTING_AS);
        String token = actingAs != null ? actingAs : credentials.token();
        if (token != null) {
          headers.put(AUTHORIZATION, BEARER + token);
        }
        ActingFor actingFor = ActingFor.current();
        if (actingFor != null) {
          headers.put(ACTING_FOR, actingFor.header());
        }
        super.start(listener, headers);
      }
    };
  }
}
