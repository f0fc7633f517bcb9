package io.strata.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The lean GETs: addressed and signed exactly as the SDK sends {@code getObject} (compared with the
 * SDK's own requests, caught before they leave), one request per read, and the SDK's retries and
 * errors whenever the answer is not the bytes asked for.
 */
class S3ObjectGetsTest {
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

  @RegisterExtension static final LocalS3Store store = LocalS3Store.withBuckets("gets");

  /** Stops the SDK's request once signed, keeping it. */
  private static final class Caught extends RuntimeException {
    Caught() {
      super("caught before transmission");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"path-style", "virtual-host"})
  void requests_areAddressedAndSigned_asTheSdkSendsThem(String style) {
    Map<String, String> options = new HashMap<>();
    options.put(S3Settings.ACCESS_KEY, "AKIDEXAMPLE");
    options.put(S3Settings.SECRET_KEY, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    options.put(S3Settings.REGION, "eu-west-3");
    if (style.equals("path-style")) {
      options.put(S3Settings.ENDPOINT, "http://127.0.0.1:9");
      options.put(S3Settings.PATH_STYLE, "true");
    }
    S3Settings settings = S3Settings.of(options);
    AtomicReference<SdkHttpRequest> sent = new AtomicReference<>();
    ExecutionInterceptor catcher =
        new ExecutionInterceptor() {
          @Override
          public void beforeTransmission(Context.BeforeTransmission c, ExecutionAttributes a) {
            sent.set(c.httpRequest());
            throw new Caught();
          }
        };
    var credentials = S3Clients.credentials(settings);
    try (SdkHttpClient http = S3Clients.http(settings).build();
        S3Client sdk =
            withInterceptor(S3Clients.builder(settings, credentials).httpClient(http), catcher);
        S3ObjectGets gets = new S3ObjectGets(sdk, settings, credentials, "my-bucket")) {
      for (String key : List.of("plain", "a b/c+d%e&f=g", "ünï/çødé ✓", "x//y/./z", "t~*'()!")) {
        assertThatThrownBy(
                () ->
                    sdk.getObject(
                        r -> r.bucket("my-bucket").key(key).range("bytes=5-104").ifMatch("\"e1\"")))
            .isInstanceOf(Caught.class);
        SdkHttpRequest sdks = sent.get();
        SdkHttpFullRequest ours = gets.request(key, 5, 100, 1000, "\"e1\"");
        assertThat(ours.getUri()).as(key).isEqualTo(sdks.getUri());
        assertThat(ours.firstMatchingHeader("Range")).isEqualTo(sdks.firstMatchingHeader("Range"));
        assertThat(ours.firstMatchingHeader("If-Match"))
            .isEqualTo(sdks.firstMatchingHeader("If-Match"));
        assertThat(ours.firstMatchingHeader("Host"))
            .as("the Host header signed and sent")
            .isEqualTo(sdks.firstMatchingHeader("Host"))
            .isPresent();

        // The SDK's request signed again our way, at the SDK's time, must carry its signature.
        String date = sdks.firstMatchingHeader("X-Amz-Date").orElseThrow();
        Clock then =
            Clock.fixed(
                LocalDateTime.parse(date, AMZ_DATE).toInstant(ZoneOffset.UTC), ZoneOffset.UTC);
        SdkHttpRequest unsigned = sdks.toBuilder().removeHeader("Authorization").build();
        assertThat(gets.sign(unsigned, then).firstMatchingHeader("Authorization"))
            .as(key)
            .isEqualTo(sdks.firstMatchingHeader("Authorization"))
            .isPresent();
      }
      assertThat(gets.request("k", 0, 1000, 1000, "\"e1\"").firstMatchingHeader("Range"))
          .as("a whole object is asked for as a download")
          .isEmpty();
    }
  }

  @Test
  void credentialsThatCannotBeResolved_leaveTheGetToTheSdk() {
    S3Settings settings = S3Settings.of(LocalS3Store.options(store.port()));
    AwsCredentialsProvider none =
        () -> {
          throw SdkClientException.create("no credentials here");
        };
    try (S3Client sdk = S3Clients.build(settings);
        S3ObjectGets gets = new S3ObjectGets(sdk, settings, none, "gets")) {
      assertThat(gets.open("one/any", 0, 10, 10, "\"e1\"")).isEmpty();
    }
  }

  @Test
  void aProxyForTheStore_sendsTheGetsThroughTheSdk() throws Exception {
    URL https = new URL("https://bucket.s3.amazonaws.com/strata-probe");
    URL http = new URL("http://127.0.0.1:9000/bucket/strata-probe");
    assertThat(S3ObjectGets.proxied(https, Map.of())).isFalse();
    assertThat(S3ObjectGets.proxied(https, Map.of("HTTPS_PROXY", "http://proxy:3128"))).isTrue();
    assertThat(S3ObjectGets.proxied(https, Map.of("https_proxy", "http://proxy:3128"))).isTrue();
    assertThat(S3ObjectGets.proxied(http, Map.of("https_proxy", "http://proxy:3128"))).isFalse();
    assertThat(S3ObjectGets.proxied(http, Map.of("HTTP_PROXY", "http://proxy:3128"))).isTrue();
  }

  @Test
  void aRead_isOneRequest_ofTheRangeAsked() throws Exception {
    byte[] data = new byte[300_000];
    new Random(7).nextBytes(data);
    store.admin().putObject(r -> r.bucket("gets").key("one/data"), RequestBody.fromBytes(data));
    String fingerprint = fingerprintOf("/data");
    try (FaultyS3Proxy proxy = FaultyS3Proxy.throttling(store.port(), 0);
        S3UnderFileSystem ufs = mount(proxy.port());
        UfsReader reader = ufs.openVersion(StrataPath.of("/data"), fingerprint)) {
      ByteBuffer[] pages = {ByteBuffer.allocateDirect(70_000), ByteBuffer.allocate(80_000)};
      assertThat(reader.readFully(123_456, pages)).isEqualTo(150_000);
      assertThat(proxy.forwarded()).isEqualTo(1);
      byte[] got = new byte[150_000];
      pages[0].flip().get(got, 0, 70_000);
      pages[1].flip().get(got, 70_000, 80_000);
      assertThat(got).isEqualTo(Arrays.copyOfRange(data, 123_456, 273_456));

      ByteBuffer whole = ByteBuffer.allocate(data.length);
      assertThat(reader.readFully(0, whole)).isEqualTo(data.length);
      assertThat(whole.array()).isEqualTo(data);
      assertThat(proxy.forwarded()).isEqualTo(2);
    }
  }

  @Test
  void throttledGets_fallToTheSdk_whichRetriesThem() throws Exception {
    store
        .admin()
        .putObject(r -> r.bucket("gets").key("one/slow"), RequestBody.fromString("at last"));
    String fingerprint = fingerprintOf("/slow");
    try (FaultyS3Proxy proxy = FaultyS3Proxy.throttling(store.port(), 3);
        S3UnderFileSystem ufs = mount(proxy.port());
        UfsReader reader = ufs.openVersion(StrataPath.of("/slow"), fingerprint)) {
      ByteBuffer b = ByteBuffer.allocate(7);
      assertThat(reader.readFully(0, b)).isEqualTo(7);
      assertThat(new String(b.array(), StandardCharsets.UTF_8)).isEqualTo("at last");
      assertThat(proxy.failed()).isEqualTo(3);
    }
  }

  @Test
  void aReplacedObject_isNeverServedAsTheVersionOpened() throws Exception {
    store
        .admin()
        .putObject(r -> r.bucket("gets").key("one/moving"), RequestBody.fromString("first"));
    try (S3UnderFileSystem ufs = mount(store.port());
        UfsReader reader = ufs.openReader(StrataPath.of("/moving"))) {
      store
          .admin()
          .putObject(r -> r.bucket("gets").key("one/moving"), RequestBody.fromString("other"));
      assertThatThrownBy(() -> reader.readFully(0, ByteBuffer.allocate(5)))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION));
    }
  }

  private static S3Client withInterceptor(S3ClientBuilder b, ExecutionInterceptor i) {
    return b.overrideConfiguration(
            b.overrideConfiguration().toBuilder().addExecutionInterceptor(i).build())
        .build();
  }

  /** The fingerprint a look-up of {@code path} gives, straight from the store. */
  private static String fingerprintOf(String path) {
    try (S3UnderFileSystem direct = mount(store.port())) {
      return direct.getStatus(StrataPath.of(path)).fingerprint();
    }
  }

  private static S3UnderFileSystem mount(int port) {
    return new S3UnderFileSystem("s3://gets/one", S3Settings.of(LocalS3Store.options(port)));
  }
}
