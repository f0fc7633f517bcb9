package io.strata.core.security;

import io.grpc.Context;
import java.net.SocketAddress;

/**
 * Who is calling, as the server established it: from a verified token in TOKEN mode, from the name
 * the client sent in NONE mode (where every caller is trusted alike).
 */
public record Principal(String user, Role role) {
  /**
   * The caller of the gRPC call being served, set by {@link io.strata.core.rpc.AuthInterceptor}.
   */
  public static final Context.Key<Principal> CURRENT = Context.key("strata-principal");

  /** Where the call being served came from, set with {@link #CURRENT}. */
  public static final Context.Key<SocketAddress> REMOTE = Context.key("strata-remote");

  /** The caller of the call being served, or null outside a call. */
  public static Principal current() {
    return CURRENT.get();
  }
}
