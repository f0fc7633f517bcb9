package io.strata.s3;

import io.strata.core.status.StrataException;

/**
 * An answer S3 gives as an error document: its code (NoSuchKey, AccessDenied...), HTTP status and
 * message. Thrown by the operations, written by {@link S3Exchange}.
 */
final class S3Error extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final int status;
  final String code;

  /** An element the error document adds after the message, as S3's do ({@code Key}), or null. */
  final String detailName;

  final String detailValue;

  S3Error(int status, String code, String message) {
    this(status, code, message, null, null);
  }

  private S3Error(int status, String code, String message, String detailName, String detail) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.detailName = detailName;
    this.detailValue = detail;
  }

  // Messages are AWS's own, word for word: clients and conformance suites compare them. The
  // error document's Resource names the bucket and key.

  static S3Error noSuchKey(String key) {
    return new S3Error(404, "NoSuchKey", "The specified key does not exist.", "Key", key);
  }

  static S3Error noSuchBucket(String bucket) {
    return new S3Error(
        404, "NoSuchBucket", "The specified bucket does not exist.", "BucketName", bucket);
  }

  static S3Error invalidArgument(String message) {
    return new S3Error(400, "InvalidArgument", message);
  }

  /** InvalidArgument naming the argument refused ({@code ArgumentName}), as S3 names it. */
  static S3Error invalidArgument(String message, String argument) {
    return new S3Error(400, "InvalidArgument", message, "ArgumentName", argument);
  }

  /** An error with one more element of S3's after Message ({@code name}: {@code value}). */
  static S3Error withDetail(int status, String code, String message, String name, String value) {
    return new S3Error(status, code, message, name, value);
  }

  static S3Error invalidRequest(String message) {
    return new S3Error(400, "InvalidRequest", message);
  }

  static S3Error accessDenied(String message) {
    return new S3Error(403, "AccessDenied", message);
  }

  static S3Error notImplemented(String what) {
    return new S3Error(501, "NotImplemented", what + " is not implemented by Strata's endpoint");
  }

  static S3Error preconditionFailed() {
    return new S3Error(
        412,
        "PreconditionFailed",
        "At least one of the pre-conditions you specified did not hold.");
  }

  /** MalformedXML in S3's own words. */
  static S3Error malformedXml() {
    return malformedXml(
        "The XML you provided was not well-formed or did not validate against our published"
            + " schema.");
  }

  static S3Error malformedXml(String message) {
    return new S3Error(400, "MalformedXML", message);
  }

  /**
   * What a failure of the cluster means to an S3 client: a missing entry is NoSuchKey (the caller
   * knows whether a bucket or a key), a refusal AccessDenied, a busy or unreachable cluster a 503
   * the client retries.
   */
  static S3Error of(StrataException e, String key) {
    return switch (e.code()) {
      case NOT_FOUND -> noSuchKey(key);
      case PERMISSION_DENIED, UNAUTHENTICATED, NOT_PERMITTED ->
          accessDenied("Access Denied (" + e.getMessage() + ")");
      case INVALID_ARGUMENT, NAME_TOO_LONG -> invalidArgument(e.getMessage());
      case IS_A_DIRECTORY, NOT_A_DIRECTORY, DIRECTORY_NOT_EMPTY ->
          new S3Error(409, "InvalidObjectState", e.getMessage());
      case ALREADY_EXISTS, FAILED_PRECONDITION ->
          new S3Error(409, "OperationAborted", e.getMessage());
      case RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED, NOT_LEADER ->
          new S3Error(503, "ServiceUnavailable", e.getMessage());
      default -> new S3Error(500, "InternalError", e.getMessage());
    };
  }
}
