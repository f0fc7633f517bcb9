package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Signature V4 against the example of AWS's S3 documentation ("Example: GET Object"). */
class SigV4Test {
  private static final String ACCESS = "AKIAIOSFODNN7EXAMPLE";
  private static final SigV4.Secrets SECRETS =
      k ->
          k.equals(ACCESS)
              ? Optional.of("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
              : Optional.empty();
  private static final Instant THEN = Instant.parse("2013-05-24T00:05:00Z");

  private static S3Request example(String signature) {
    return example(signature, java.util.List.of());
  }

  private static S3Request example(String signature, java.util.List<String> domains) {
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("Host", "examplebucket.s3.amazonaws.com");
    h.set("Range", "bytes=0-9");
    h.set("x-amz-content-sha256", SigV4.EMPTY_SHA256);
    h.set("x-amz-date", "20130524T000000Z");
    h.set(
        "Authorization",
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature="
            + signature);
    return S3Request.parse("GET", "/test.txt", h, domains);
  }

  @Test
  void theDocumentedExample_verifies() {
    SigV4Signed s =
        SigV4.verify(
            example("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
            SECRETS,
            THEN);
    assertThat(s.accessKey()).isEqualTo(ACCESS);
    assertThat(s.scope()).isEqualTo("20130524/us-east-1/s3/aws4_request");
  }

  /**
   * The example is a virtual-hosted request (Host: examplebucket.s3.amazonaws.com): with that
   * domain configured its host names the bucket and its path the key, and it still verifies.
   */
  @Test
  void virtualHosted_theHostNamesTheBucket() {
    S3Request hosted =
        example(
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
            java.util.List.of("S3.amazonaws.com"));
    assertThat(hosted.bucket()).isEqualTo("examplebucket");
    assertThat(hosted.key()).isEqualTo("test.txt");
    assertThat(hosted.resource()).isEqualTo("/examplebucket/test.txt");
    assertThat(SigV4.verify(hosted, SECRETS, THEN).accessKey()).isEqualTo(ACCESS);
    S3Request pathStyle = example("x", java.util.List.of("other.example"));
    assertThat(pathStyle.bucket()).isEqualTo("test.txt");
    assertThat(pathStyle.key()).isEmpty();
  }

  @Test
  void anotherSignature_aSkewedClock_andAnUnknownKey_areRefused() {
    assertThatThrownBy(
            () ->
                SigV4.verify(
                    example("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb40"),
                    SECRETS,
                    THEN))
        .isInstanceOfSatisfying(
            S3Error.class, e -> assertThat(e.code).isEqualTo("SignatureDoesNotMatch"));
    assertThatThrownBy(
            () ->
                SigV4.verify(
                    example("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
                    SECRETS,
                    THEN.plusSeconds(16 * 60)))
        .isInstanceOfSatisfying(
            S3Error.class, e -> assertThat(e.code).isEqualTo("RequestTimeTooSkewed"));
    assertThatThrownBy(
            () ->
                SigV4.verify(
                    example("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
                    k -> Optional.empty(),
                    THEN))
        .isInstanceOfSatisfying(
            S3Error.class, e -> assertThat(e.code).isEqualTo("InvalidAccessKeyId"));
  }

  @Test
  void aSignatureThatLeavesTheDateOut_isRefused() {
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("Host", "examplebucket.s3.amazonaws.com");
    h.set("x-amz-content-sha256", SigV4.EMPTY_SHA256);
    h.set("x-amz-date", "20130524T000000Z");
    h.set(
        "Authorization",
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=host;x-amz-content-sha256,Signature=00");
    assertThatThrownBy(
            () -> SigV4.verify(S3Request.parse("GET", "/t", h, java.util.List.of()), SECRETS, THEN))
        .isInstanceOfSatisfying(
            S3Error.class, e -> assertThat(e.getMessage()).contains("x-amz-date"));
  }

  /**
   * A request of the documented example's headers with {@code authorization} instead of its own.
   */
  private static S3Request withAuthorization(String authorization, String payloadClaim) {
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("Host", "examplebucket.s3.amazonaws.com");
    h.set("x-amz-content-sha256", payloadClaim);
    h.set("x-amz-date", "20130524T000000Z");
    h.set("Authorization", authorization);
    return S3Request.parse("GET", "/test.txt", h, java.util.List.of());
  }

  private static void assertRefused(S3Request r, int status, String code, String message) {
    assertThatThrownBy(() -> SigV4.verify(r, SECRETS, THEN))
        .isInstanceOfSatisfying(
            S3Error.class,
            e -> {
              assertThat(e.code).isEqualTo(code);
              assertThat(e.status).isEqualTo(status);
              assertThat(e.getMessage()).isEqualTo(message);
            });
  }

  /** A malformed Authorization header is a 400 in AWS's words, naming what is wrong. */
  @Test
  void malformedHeaders_areRefusedInAwsWords() {
    String good = "Credential=" + ACCESS + "/20130524/us-east-1/s3/aws4_request";
    String malformed = "AuthorizationHeaderMalformed";
    String prefix = "The authorization header is malformed; ";
    assertRefused(
        withAuthorization("AWS4-HMAC-SHA256 " + good + ",Signature=00", SigV4.EMPTY_SHA256),
        400,
        malformed,
        prefix
            + "the authorization header requires three components: Credential, SignedHeaders,"
            + " and Signature.");
    assertRefused(
        withAuthorization(
            "AWS4-HMAC-SHA256 " + good + ",SignedHeaders-host,Signature=00", SigV4.EMPTY_SHA256),
        400,
        malformed,
        prefix + "the authorization component \"SignedHeaders-host\" is malformed.");
    assertRefused(
        withAuthorization(
            "AWS4-HMAC-SHA256 " + good + ",SignedHeaders=host,Credential=x", SigV4.EMPTY_SHA256),
        400,
        malformed,
        prefix + "missing Signature.");
    for (String[] scope :
        new String[][] {
          {
            "/20130524/us-east-1/s3",
            "the Credential is mal-formed; expecting"
                + " \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."
          },
          {
            "/2013052/us-east-1/s3/aws4_request",
            "incorrect date format \"2013052\". This date"
                + " in the credential must be in the format \"yyyyMMdd\"."
          },
          {
            "/20130524/us-east-1/s3/aws_request",
            "incorrect terminal \"aws_request\". This endpoint uses \"aws4_request\"."
          },
          {
            "/20130524/us-east-1/ec2/aws4_request",
            "incorrect service \"ec2\". This endpoint belongs to \"s3\"."
          },
          {
            "/20130525/us-east-1/s3/aws4_request",
            "Invalid credential date \"20130525\". This"
                + " date is not the same as X-Amz-Date: \"20130524\"."
          }
        }) {
      assertRefused(
          withAuthorization(
              "AWS4-HMAC-SHA256 Credential="
                  + ACCESS
                  + scope[0]
                  + ",SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=00",
              SigV4.EMPTY_SHA256),
          400,
          malformed,
          prefix + scope[1]);
    }
    assertRefused(
        withAuthorization("AWS " + ACCESS + ":c2lnbmF0dXJl", SigV4.EMPTY_SHA256),
        400,
        "InvalidRequest",
        "The authorization mechanism you have provided is not supported. Please use"
            + " AWS4-HMAC-SHA256.");
    assertRefused(
        withAuthorization("AWS4-HMAC-SHA256" + good, SigV4.EMPTY_SHA256),
        400,
        "InvalidArgument",
        "Authorization header is invalid -- one and only one ' ' (space) required.");
    assertRefused(
        withAuthorization("Bearer abc", SigV4.EMPTY_SHA256),
        400,
        "InvalidArgument",
        "Unsupported Authorization Type");
    assertThatThrownBy(
            () ->
                SigV4.verify(
                    withAuthorization(
                        "AWS4-HMAC-SHA256 "
                            + good
                            + ",SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=00",
                        "not-a-hash"),
                    SECRETS,
                    THEN))
        .isInstanceOfSatisfying(
            S3Error.class, e -> assertThat(e.code).isEqualTo("InvalidArgument"));
  }

  private static S3Request presigned(String query) {
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("Host", "examplebucket.s3.amazonaws.com");
    return S3Request.parse("GET", "/test.txt?" + query, h, java.util.List.of());
  }

  /** A presigned URL that is incomplete or out of S3's bounds is a 400 in AWS's words. */
  @Test
  void malformedPresignedUrls_areRefusedInAwsWords() {
    String full =
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
            + ACCESS
            + "%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
            + "&X-Amz-SignedHeaders=host&X-Amz-Signature=00";
    String error = "AuthorizationQueryParametersError";
    assertRefused(
        presigned(full.replace("AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256") + "&X-Amz-Expires=60"),
        400,
        error,
        "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256 and AWS4-ECDSA-P256-SHA256\"");
    assertRefused(
        presigned(full),
        400,
        error,
        "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential,"
            + " X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
    assertRefused(
        presigned(full + "&X-Amz-Expires=soon"), 400, error, "X-Amz-Expires should be a number");
    assertRefused(
        presigned(full + "&X-Amz-Expires=-1"), 400, error, "X-Amz-Expires must be non-negative");
    assertRefused(
        presigned(full + "&X-Amz-Expires=604801"),
        400,
        error,
        "X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires"
            + " must be less than 604800 seconds");
    assertRefused(
        presigned(full.replace("20130524T000000Z", "20130524") + "&X-Amz-Expires=60"),
        400,
        error,
        "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
    assertRefused(
        presigned(full.replace("%2Fs3%2F", "%2Fec2%2F") + "&X-Amz-Expires=600"),
        400,
        error,
        "Error parsing the X-Amz-Credential parameter; incorrect service \"ec2\". This endpoint"
            + " belongs to \"s3\".");
    assertRefused(
        presigned(full + "&X-Amz-Expires=600&X-Amz-Security-Token=abc"),
        400,
        "InvalidToken",
        "The provided token is malformed or otherwise invalid.");
    assertRefused(
        presigned(full + "&X-Amz-Expires=60"), 403, "AccessDenied", "Request has expired.");
  }

  @Test
  void crc64nvme_hasItsCheckValue() {
    Crc64Nvme crc = new Crc64Nvme();
    byte[] b = "123456789".getBytes(StandardCharsets.US_ASCII);
    crc.update(b, 0, b.length);
    assertThat(crc.getValue()).isEqualTo(0xae8b14860a799888L);
  }
}
