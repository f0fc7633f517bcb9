package io.strata.ufs.s3;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Turns what the AWS SDK throws into one line a person can act on, naming what was asked and the
 * mount's URI, never a credential (the SDK's own messages are not quoted).
 */
final class S3Errors {
  private S3Errors() {}

  /**
   * @param what the path or key asked about
   * @param mount the mount's URI
   */
  static StrataException toStrata(SdkException e, String what, String mount) {
    if (e instanceof S3Exception s3) {
      String code = s3.awsErrorDetails() == null ? "" : s3.awsErrorDetails().errorCode();
      code = code == null ? "" : code;
      int status = s3.statusCode();
      if (code.equals("NoSuchBucket")) {
        return StrataException.notFound("the bucket of " + mount + " does not exist");
      }
      if (status == 404) {
        return StrataException.notFound(what + " does not exist");
      }
      if (status == 403) {
        return new StrataException(
            StatusCode.PERMISSION_DENIED,
            "access to "
                + what
                + " denied by "
                + mount
                + " (403 "
                + code
                + "): check the mount's "
                + "credentials and the bucket's policy");
      }
      if (status == 412) {
        return new StrataException(
            StatusCode.FAILED_PRECONDITION, what + " changed in " + mount + " while being read");
      }
      if (status == 301
          || code.equals("AuthorizationHeaderMalformed")
          || code.equals("PermanentRedirect")
          || code.equals("IllegalLocationConstraintException")) {
        return StrataException.invalidArgument(
            "the bucket of "
                + mount
                + " is in another region than the mount's "
                + S3Settings.REGION
                + " ("
                + status
                + " "
                + code
                + ")");
      }
      if (status == 503 || status >= 500) {
        return StrataException.unavailable(
            mount
                + " kept failing ("
                + status
                + " "
                + code
                + ") for "
                + what
                + " within the retry budget",
            e);
      }
      return new StrataException(
          StatusCode.INTERNAL,
          mount + " refused a request for " + what + " (" + status + " " + code + ")",
          e);
    }
    if (e instanceof ApiCallTimeoutException) {
      return new StrataException(
          StatusCode.DEADLINE_EXCEEDED,
          mount + " did not answer for " + what + " within " + S3Settings.RETRY_BUDGET,
          e);
    }
    UnknownHostException unknown = cause(e, UnknownHostException.class);
    if (unknown != null) {
      return StrataException.unavailable(
          "cannot reach " + mount + ": unknown host " + unknown.getMessage(), e);
    }
    if (cause(e, ConnectException.class) != null) {
      return StrataException.unavailable("cannot reach " + mount + ": connection refused", e);
    }
    return StrataException.unavailable(
        "cannot reach " + mount + " for " + what + ": " + e.getClass().getSimpleName(), e);
  }

  private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
