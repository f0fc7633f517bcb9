package io.strata.core.status;

/**
 * The closed set of outcomes every Strata interface speaks: gRPC, the data plane, FUSE and the
 * shell. Each code has a stable number that travels in data-plane frames; exactly one class maps
 * codes to and from each outside world (gRPC status, errno, shell exit line).
 */
public enum StatusCode {
  OK(0),
  NOT_FOUND(1),
  ALREADY_EXISTS(2),
  PERMISSION_DENIED(3),
  INVALID_ARGUMENT(4),
  UNAVAILABLE(5),
  NOT_LEADER(6),
  RESOURCE_EXHAUSTED(7),
  /** The operation does not fit the object's current state, e.g. a file changed while read. */
  FAILED_PRECONDITION(8),
  DIRECTORY_NOT_EMPTY(9),
  IS_A_DIRECTORY(10),
  NOT_A_DIRECTORY(11),
  DEADLINE_EXCEEDED(12),
  CANCELLED(13),
  INTERNAL(14),
  /** Not allowed whatever the caller's rights (POSIX's EPERM), e.g. a hard link to a directory. */
  NOT_PERMITTED(15),
  NAME_TOO_LONG(16),
  TOO_MANY_LINKS(17),
  /** A rename or link across mounts or devices (EXDEV). */
  CROSS_DEVICE(18),
  /** The caller did not prove who it is: no token, a forged or an expired one. */
  UNAUTHENTICATED(19);

  private static final StatusCode[] BY_NUMBER = new StatusCode[values().length];

  static {
    for (StatusCode code : values()) {
      BY_NUMBER[code.number] = code;
    }
  }

  private final int number;

  StatusCode(int number) {
    this.number = number;
  }

  public int number() {
    return number;
  }

  /** The code with this wire number; unknown numbers (a newer peer) read as INTERNAL. */
  public static StatusCode fromNumber(int number) {
    return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : INTERNAL;
  }
}
