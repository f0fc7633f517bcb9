package io.strata.core.status;

import java.util.Optional;

/**
 * The one exception type that crosses Strata's module and process boundaries. It carries a {@link
 * StatusCode} and a message meant for a person; it is never serialized as a Java object, only as
 * code plus message (and, for NOT_LEADER, the leader's address).
 */
public class StrataException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final StatusCode code;
  private final String leaderHint;

  public StrataException(StatusCode code, String message) {
    this(code, message, null, null);
  }

  public StrataException(StatusCode code, String message, Throwable cause) {
    this(code, message, null, cause);
  }

  private StrataException(StatusCode code, String message, String leaderHint, Throwable cause) {
    super(message, cause);
    if (code == StatusCode.OK) {
      throw new IllegalArgumentException("an exception cannot carry OK");
    }
    this.code = code;
    this.leaderHint = leaderHint;
  }

  public StatusCode code() {
    return code;
  }

  /** For NOT_LEADER: the address ("host:port") of the master believed to lead, if known. */
  public Optional<String> leaderHint() {
    return Optional.ofNullable(leaderHint);
  }

  /** One line for people: {@code NOT_FOUND: /x does not exist}. */
  public String oneLine() {
    return code + ": " + getMessage();
  }

  public static StrataException notFound(String message) {
    return new StrataException(StatusCode.NOT_FOUND, message);
  }

  public static StrataException alreadyExists(String message) {
    return new StrataException(StatusCode.ALREADY_EXISTS, message);
  }

  public static StrataException invalidArgument(String message) {
    return new StrataException(StatusCode.INVALID_ARGUMENT, message);
  }

  public static StrataException unavailable(String message, Throwable cause) {
    return new StrataException(StatusCode.UNAVAILABLE, message, cause);
  }

  public static StrataException internal(String message, Throwable cause) {
    return new StrataException(StatusCode.INTERNAL, message, cause);
  }

  public static StrataException notLeader(String message, String leaderHint) {
    return new StrataException(StatusCode.NOT_LEADER, message, leaderHint, null);
  }
}
