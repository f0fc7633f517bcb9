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
    SigV4.Signed s =
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

  @Test
  void crc64nvme_hasItsCheckValue() {
    Crc64Nvme crc = new Crc64Nvme();
    byte[] b = "123456789".getBytes(StandardCharsets.US_ASCII);
    crc.update(b, 0, b.length);
    assertThat(crc.getValue()).isEqualTo(0xae8b14860a799888L);
  }
}
