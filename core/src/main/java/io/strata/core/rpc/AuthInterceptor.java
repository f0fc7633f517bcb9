package io.strata.core.rpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import io.strata.core.net.ConnectionGate;
import io.strata.core.security.ActingFor;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.core.security.SecurityMode;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Clock;

/**
 * Establishes who is calling before any service code runs, and whether they may: in TOKEN mode from
 * the bearer token the call carries (UNAUTHENTICATED without a valid one), then against the role
 * the method needs ({@link AccessPolicy}; PERMISSION_DENIED below it). In NONE mode every caller is
 * trusted with every role, under the name it sends. The caller is then {@link Principal#current()}
 * for the service and the audit log. The first call that proves a caller proves its connection to
 * the port's {@link ConnectionGate}.
 */
public final class AuthInterceptor implements ServerInterceptor {
  private final Security security;
  private final AuditInterceptor audit;
  private final Clock clock;
  private final GatedConnections connections;

  /** Refusals are written to {@code audit}'s log. */
  AuthInterceptor(Security security, AuditInterceptor audit, GatedConnections connections) {
    this(security, audit, Clock.systemUTC(), connections);
  }

  AuthInterceptor(
      Security security, AuditInterceptor audit, Clock clock, GatedConnections connections) {
    this.security = security;
    this.audit = audit;
    this.clock = clock;
    this.connections = connections;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Principal caller;
    ActingFor actingFor;
    ConnectionGate.Held held = null;
    try {
      caller = authenticate(headers);
      actingFor = actingFor(caller, headers);
      held = connections.held(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
      if (held != null && !held.prove(caller)) {
        throw new StrataException(
            StatusCode.RESOURCE_EXHAUSTED,
            caller.user()
                + " holds as many connections to this port as allowed"
                + " (strata.rpc.max.connections.per.user), or users hold every place not kept for"
                + " the cluster's processes: this one closes");
      }
      Role needed = AccessPolicy.needed(call.getMethodDescriptor().getFullMethodName());
      if (!caller.role().covers(needed)) {
        throw new StrataException(
            StatusCode.PERMISSION_DENIED,
            call.getMethodDescriptor().getBareMethodName()
                + " needs "
                + (needed == Role.SERVICE ? "the cluster secret" : "an admin token")
                + "; "
                + caller.user()
                + " is "
                + (caller.role() == Role.USER ? "a user" : "an admin"));
      }
    } catch (StrataException e) {
      audit.refused(call, headers, e.code());
      StatusRuntimeException refusal = GrpcErrors.toGrpc(e);
      call.close(refusal.getStatus(), refusal.getTrailers());
      if (e.code() == StatusCode.RESOURCE_EXHAUSTED && held != null) {
        held.close();
      }
      return new ServerCall.Listener<>() {};
    }
    return Contexts.interceptCall(
        Context.current()
            .withValue(Principal.CURRENT, caller)
            .withValue(ActingFor.CURRENT, actingFor)
            .withValue(Principal.REMOTE, call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)),
        call,
        headers,
        next);
  }

  /** A SERVICE caller's claim to act for a local account; other callers act as themselves. */
  private static ActingFor actingFor(Principal caller, Metadata headers) {
    String claim = headers.get(CallerInterceptor.ACTING_FOR);
    return claim == null || caller.role() != Role.SERVICE ? null : ActingFor.parse(claim);
  }

  private Principal authenticate(Metadata headers) {
    if (security.mode() == SecurityMode.NONE) {
      String user = headers.get(CallerInterceptor.USER);
      return new Principal(user == null ? "unknown" : user, Role.SERVICE);
    }
    String authorization = headers.get(CallerInterceptor.AUTHORIZATION);
    String token =
        authorization != null && authorization.startsWith(CallerInterceptor.BEARER)
            ? authorization.substring(CallerInterceptor.BEARER.length())
            : null;
    return Tokens.verify(security.secret().orElseThrow(), token, clock.instant());
  }
}
