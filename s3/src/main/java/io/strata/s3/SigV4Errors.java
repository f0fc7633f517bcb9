package io.strata.s3;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Why a signature is refused, in AWS's words and codes, which clients and conformance suites
 * compare: a malformed Authorization header is a 400 AuthorizationHeaderMalformed, a malformed
 * presigned query a 400 AuthorizationQueryParametersError; a signature that is well formed but does
 * not hold (a key, a date, the signature itself) a 403.
 */
final class SigV4Errors {
  private static final DateTimeFormatter CREDENTIAL_DATE = DateTimeFormatter.BASIC_ISO_DATE;

  /** Where the signature came from: the Authorization header, or a presigned URL's query. */
  enum Form {
    HEADER,
    QUERY;

    /** A 400 for a structurally invalid signature, {@code detail} saying what is wrong. */
    S3Error malformed(String detail) {
      return this == HEADER
          ? new S3Error(
              400,
              "AuthorizationHeaderMalformed",
              "The authorization header is malformed; " + detail)
          : new S3Error(400, "AuthorizationQueryParametersError", detail);
    }

    /** A 400 for a credential scope that is not ACCESS_KEY/yyyyMMdd/REGION/s3/aws4_request. */
    S3Error credential(String detail) {
      return malformed(
          this == HEADER ? detail : "Error parsing the X-Amz-Credential parameter; " + detail);
    }
  }

  private SigV4Errors() {}

  /**
   * The credential scope's parts (access key, date, region, service, terminal), checked against
   * S3's form and the request's date {@code amzDate}.
   */
  static String[] credential(String credential, String amzDate, Form form) {
    String[] c = credential.split("/", -1);
    if (c.length != 5 || c[0].isEmpty()) {
      throw form.credential(
          "the Credential is mal-formed; expecting"
              + " \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
    }
    if (!c[4].equals("aws4_request")) {
      throw form.credential(
          "incorrect terminal \"" + c[4] + "\". This endpoint uses \"aws4_request\".");
    }
    if (!c[3].equals("s3")) {
      throw form.credential("incorrect service \"" + c[3] + "\". This endpoint belongs to \"s3\".");
    }
    try {
      LocalDate.parse(c[1], CREDENTIAL_DATE);
    } catch (DateTimeParseException e) {
      throw form.credential(
          "incorrect date format \""
              + c[1]
              + "\". This date in the credential must be in the format \"yyyyMMdd\".");
    }
    if (!amzDate.startsWith(c[1])) {
      throw form.malformed(
          "Invalid credential date \""
              + c[1]
              + "\". This date is not the same as X-Amz-Date: \""
              + amzDate.substring(0, Math.min(8, amzDate.length()))
              + "\".");
    }
    return c;
  }

  /**
   * An Authorization header of another scheme than Signature Version 4 ({@code AWS}: version 2), or
   * with no space after its scheme.
   */
  static S3Error unsupportedScheme(String auth) {
    int space = auth.indexOf(' ');
    if (space < 0) {
      return S3Error.invalidArgument(
          "Authorization header is invalid -- one and only one ' ' (space) required.",
          "Authorization");
    }
    if (auth.substring(0, space).equals("AWS")) {
      return S3Error.invalidRequest(
          "The authorization mechanism you have provided is not supported. Please use "
              + SigV4.ALGORITHM
              + ".");
    }
    return S3Error.invalidArgument("Unsupported Authorization Type", "Authorization");
  }

  /** A request whose date is missing or not in a form S3 takes. */
  static S3Error noValidDate() {
    return S3Error.accessDenied("AWS authentication requires a valid Date or x-amz-date header.");
  }

  static S3Error unknownAccessKey(String accessKey) {
    return S3Error.withDetail(
        403,
        "InvalidAccessKeyId",
        "The AWS Access Key Id you provided does not exist in our records.",
        "AWSAccessKeyId",
        accessKey);
  }

  /** A presigned URL past its expiry, with the endpoint's time as S3 gives it. */
  static S3Error expired(Instant now) {
    return S3Error.withDetail(
        403,
        "AccessDenied",
        "Request has expired.",
        "ServerTime",
        now.truncatedTo(ChronoUnit.SECONDS).toString());
  }

  /** A presigned URL without one of the parameters Signature Version 4 needs. */
  static S3Error presignedIncomplete() {
    return Form.QUERY.malformed(
        "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential,"
            + " X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
  }
}
