package io.strata.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;

/**
 * The lean GETs' signer against the SDK's own SigV4 signer, configured as the SDK configures it for
 * S3 (S3ObjectGetsTest compares with requests the SDK's client itself signs).
 */
class S3GetSignerTest {
  private static final Instant NOON = Instant.parse("2026-11-28T12:00:00Z");

  @Test
  void sessionCredentials_signTheirToken_asTheSdkDoes() {
    AwsCredentials session =
        AwsSessionCredentials.create("ASIAEXAMPLE", "secret/key+1", "the-token==");
    SdkHttpRequest ours = new S3GetSigner(() -> session, "ap-south-2").sign(get(), at(NOON));
    SdkHttpRequest sdks = sdkSigned(get(), session, "ap-south-2", NOON);
    assertThat(ours.firstMatchingHeader("X-Amz-Security-Token")).contains("the-token==");
    assertThat(ours.firstMatchingHeader("Authorization"))
        .isEqualTo(sdks.firstMatchingHeader("Authorization"))
        .isPresent();
  }

  @Test
  void theKeptSigningKey_followsTheDay_andTheCredentials() {
    AtomicReference<AwsCredentials> current =
        new AtomicReference<>(AwsBasicCredentials.create("AKIDONE", "first-secret"));
    S3GetSigner signer = new S3GetSigner(current::get, "us-east-1");
    Instant nextDay = NOON.plusSeconds(86_400);
    for (Instant when : new Instant[] {NOON, NOON.plusSeconds(60), nextDay}) {
      assertThat(signer.sign(get(), at(when)).firstMatchingHeader("Authorization"))
          .as("%s", when)
          .isEqualTo(
              sdkSigned(get(), current.get(), "us-east-1", when)
                  .firstMatchingHeader("Authorization"));
    }
    current.set(AwsBasicCredentials.create("AKIDONE", "rotated-secret"));
    assertThat(signer.sign(get(), at(nextDay)).firstMatchingHeader("Authorization"))
        .as("a rotated secret")
        .isEqualTo(
            sdkSigned(get(), current.get(), "us-east-1", nextDay)
                .firstMatchingHeader("Authorization"));
  }

  @Test
  void aQuery_isRefused_ratherThanSignedWrong() {
    SdkHttpRequest withQuery = get().toBuilder().putRawQueryParameter("versionId", "v1").build();
    S3GetSigner signer =
        new S3GetSigner(() -> AwsBasicCredentials.create("AKID", "secret"), "us-east-1");
    assertThatThrownBy(() -> signer.sign(withQuery, at(NOON)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static SdkHttpFullRequest get() {
    return SdkHttpFullRequest.builder()
        .method(SdkHttpMethod.GET)
        .protocol("https")
        .host("bucket.s3.ap-south-2.amazonaws.com")
        .encodedPath("/a%20b/c%2Bd")
        .putHeader("Host", "bucket.s3.ap-south-2.amazonaws.com")
        .putHeader("If-Match", "\"etag\"")
        .putHeader("Range", "bytes=0-99")
        .putHeader("User-Agent", "left unsigned")
        .build();
  }

  private static SdkHttpRequest sdkSigned(
      SdkHttpRequest request, AwsCredentials credentials, String region, Instant when) {
    return AwsV4HttpSigner.create()
        .sign(
            r ->
                r.identity(credentials)
                    .request(request)
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                    .putProperty(HttpSigner.SIGNING_CLOCK, at(when)))
        .request();
  }

  private static Clock at(Instant when) {
    return Clock.fixed(when, ZoneOffset.UTC);
  }
}
