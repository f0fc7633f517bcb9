package io.strata.core.rpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;

/**
 * The one mapping between {@link StrataException} and gRPC status, both ways. The exact Strata code
 * travels in a trailer so that codes gRPC lacks (NOT_LEADER, IS_A_DIRECTORY...) survive the trip; a
 * peer without the trailer is mapped from the gRPC code.
 */
public final class GrpcErrors {
  static final Metadata.Key<String> CODE =
      Metadata.Key.of("strata-code", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> LEADER =
      Metadata.Key.of("strata-leader", Metadata.ASCII_STRING_MARSHALLER);

  private GrpcErrors() {}

  public static StatusRuntimeException toGrpc(Throwable t) {
    StrataException e =
        t instanceof StrataException se
            ? se
            : StrataException.internal(t.getClass().getSimpleName() + ": " + t.getMessage(), t);
    Metadata trailers = new Metadata();
    trailers.put(CODE, e.code().name());
    e.leaderHint().ifPresent(h -> trailers.put(LEADER, h));
    return grpcStatus(e.code()).withDescription(e.getMessage()).asRuntimeException(trailers);
  }

  /** The Strata error a failed call stands for; {@code target} names the peer in messages. */
  public static StrataException fromGrpc(StatusRuntimeException e, String target) {
    Status status = e.getStatus();
    Metadata trailers = e.getTrailers();
    String description =
        status.getDescription() == null ? status.getCode().name() : status.getDescription();
    if (trailers != null && trailers.get(CODE) != null) {
      StatusCode code = parseCode(trailers.get(CODE));
      if (code == StatusCode.NOT_LEADER) {
        return StrataException.notLeader(description, trailers.get(LEADER));
      }
      return new StrataException(code, description);
    }
    if (causedByIo(e)) {
      // grpc-java reports a connection closed mid-call as UNKNOWN "channel closed": still the
      // network.
      return StrataException.unavailable("cannot reach " + target + ": " + describeCause(e), e);
    }
    return switch (status.getCode()) {
      case UNAVAILABLE ->
          StrataException.unavailable("cannot reach " + target + ": " + describeCause(e), e);
      case DEADLINE_EXCEEDED ->
          new StrataException(StatusCode.DEADLINE_EXCEEDED, target + " did not answer in time", e);
      case CANCELLED ->
          new StrataException(StatusCode.CANCELLED, "call to " + target + " cancelled", e);
      case NOT_FOUND -> StrataException.notFound(description);
      case ALREADY_EXISTS -> StrataException.alreadyExists(description);
      case PERMISSION_DENIED -> new StrataException(StatusCode.PERMISSION_DENIED, description);
      case UNAUTHENTICATED -> new StrataException(StatusCode.UNAUTHENTICATED, description);
      case INVALID_ARGUMENT, OUT_OF_RANGE -> StrataException.invalidArgument(description);
      case RESOURCE_EXHAUSTED -> new StrataException(StatusCode.RESOURCE_EXHAUSTED, description);
      case FAILED_PRECONDITION -> new StrataException(StatusCode.FAILED_PRECONDITION, description);
      default -> StrataException.internal(target + " failed: " + description, e);
    };
  }

  private static boolean causedByIo(Throwable e) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof java.io.IOException) {
        return true;
      }
    }
    return false;
  }

  private static StatusCode parseCode(String name) {
    try {
      return StatusCode.valueOf(name);
    } catch (IllegalArgumentException e) {
      return StatusCode.INTERNAL;
    }
  }

  private static String describeCause(StatusRuntimeException e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String message = root == e ? e.getStatus().getDescription() : root.getMessage();
    return message == null ? e.getStatus().getCode().name() : message;
  }

  private static Status grpcStatus(StatusCode code) {
    return switch (code) {
      case NOT_FOUND -> Status.NOT_FOUND;
      case ALREADY_EXISTS -> Status.ALREADY_EXISTS;
      case PERMISSION_DENIED, NOT_PERMITTED -> Status.PERMISSION_DENIED;
      case UNAUTHENTICATED -> Status.UNAUTHENTICATED;
      case INVALID_ARGUMENT, NAME_TOO_LONG -> Status.INVALID_ARGUMENT;
      case UNAVAILABLE, NOT_LEADER -> Status.UNAVAILABLE;
      case RESOURCE_EXHAUSTED -> Status.RESOURCE_EXHAUSTED;
      case FAILED_PRECONDITION,
          DIRECTORY_NOT_EMPTY,
          IS_A_DIRECTORY,
          NOT_A_DIRECTORY,
          TOO_MANY_LINKS,
          CROSS_DEVICE ->
          Status.FAILED_PRECONDITION;
      case DEADLINE_EXCEEDED -> Status.DEADLINE_EXCEEDED;
      case CANCELLED -> Status.CANCELLED;
      case INTERNAL, OK -> Status.INTERNAL;
    };
  }
}
