package io.strata.ufs.s3;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * AWS Signature Version 4 of the lean GETs, in headers, the payload unsigned, as the SDK signs S3
 * requests (the key's path neither encoded twice nor normalized). The SDK's signer spent a tenth of
 * a loaded object's worker CPU (docs/performance-log.md): it derives the signing key with four
 * HMACs for every request and builds its canonical form through several layers; here the key is
 * kept for its day, and one hash and one HMAC sign a request. S3ObjectGetsTest checks every
 * signature against the SDK's own for the same request and time.
 */
final class S3GetSigner {
  private static final String ALGORITHM = "AWS4-HMAC-SHA256";
  private static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
  private static final String HMAC = "HmacSHA256";

  /** Headers a proxy may change on the way, which the SDK leaves unsigned too. */
  private static final Set<String> UNSIGNED_HEADERS =
      Set.of("connection", "x-amzn-trace-id", "user-agent", "expect");

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(() -> instance(() -> MessageDigest.getInstance("SHA-256")));
  private static final ThreadLocal<Mac> MACS =
      ThreadLocal.withInitial(() -> instance(() -> Mac.getInstance(HMAC)));

  private final AwsCredentialsProvider credentials;
  private final String region;

  /** The signing key of the last day and credentials signed for. */
  private volatile SigningKey key;

  private record SigningKey(String accessKeyId, String secret, String day, SecretKeySpec key) {}

  S3GetSigner(AwsCredentialsProvider credentials, String region) {
    this.credentials = credentials;
    this.region = region;
  }

  /**
   * {@code request} with X-Amz-Date, X-Amz-Content-SHA256, the session token if any and
   * Authorization added, signed at {@code clock}'s time (null: the system's).
   */
  SdkHttpRequest sign(SdkHttpRequest request, Clock clock) {
    if (!request.rawQueryParameters().isEmpty()) {
      throw new IllegalArgumentException("the lean GETs carry no query: " + request.getUri());
    }
    AwsCredentialsIdentity identity = credentials.resolveCredentials();
    String amzDate = AMZ_DATE.format((clock == null ? Clock.systemUTC() : clock).instant());
    String day = amzDate.substring(0, 8);
    SdkHttpRequest.Builder out =
        request.toBuilder()
            .putHeader("X-Amz-Date", amzDate)
            .putHeader("x-amz-content-sha256", UNSIGNED_PAYLOAD);
    if (identity instanceof AwsSessionCredentialsIdentity session) {
      out.putHeader("X-Amz-Security-Token", session.sessionToken());
    }
    Map<String, String> headers = canonicalHeaders(out.headers());
    String signedHeaders = String.join(";", headers.keySet());
    StringBuilder canonical = new StringBuilder(512);
    canonical.append(request.method().name()).append('\n');
    canonical.append(request.encodedPath().isEmpty() ? "/" : request.encodedPath()).append('\n');
    canonical.append('\n');
    headers.forEach((name, value) -> canonical.append(name).append(':').append(value).append('\n'));
    canonical.append('\n').append(signedHeaders).append('\n').append(UNSIGNED_PAYLOAD);

    String scope = day + "/" + region + "/s3/aws4_request";
    String toSign =
        ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + hex(sha256(canonical.toString()));
    String signature = hex(hmac(signingKey(identity, day).key(), toSign));
    return out.putHeader(
            "Authorization",
            ALGORITHM
                + " Credential="
                + identity.accessKeyId()
                + "/"
                + scope
                + ", SignedHeaders="
                + signedHeaders
                + ", Signature="
                + signature)
        .build();
  }

  /** Lower-case names in order, each with its values trimmed, inner runs of spaces made one. */
  private static Map<String, String> canonicalHeaders(Map<String, List<String>> headers) {
    TreeMap<String, String> out = new TreeMap<>();
    headers.forEach(
        (name, values) -> {
          String lower = name.toLowerCase(Locale.ROOT);
          if (!UNSIGNED_HEADERS.contains(lower)) {
            StringBuilder joined = new StringBuilder();
            for (String v : values) {
              if (joined.length() > 0) {
                joined.append(',');
              }
              String t = v.trim();
              joined.append(t.contains("  ") ? t.replaceAll(" +", " ") : t);
            }
            out.merge(lower, joined.toString(), (a, b) -> a + "," + b);
          }
        });
    return out;
  }

  private SigningKey signingKey(AwsCredentialsIdentity identity, String day) {
    SigningKey k = key;
    if (k != null
        && k.day().equals(day)
        && k.accessKeyId().equals(identity.accessKeyId())
        && k.secret().equals(identity.secretAccessKey())) {
      return k;
    }
    byte[] derived =
        hmac(
            new SecretKeySpec(
                ("AWS4" + identity.secretAccessKey()).getBytes(StandardCharsets.UTF_8), HMAC),
            day);
    derived = hmac(new SecretKeySpec(derived, HMAC), region);
    derived = hmac(new SecretKeySpec(derived, HMAC), "s3");
    derived = hmac(new SecretKeySpec(derived, HMAC), "aws4_request");
    k =
        new SigningKey(
            identity.accessKeyId(),
            identity.secretAccessKey(),
            day,
            new SecretKeySpec(derived, HMAC));
    key = k;
    return k;
  }

  private static byte[] sha256(String s) {
    return SHA256.get().digest(s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] hmac(SecretKeySpec key, String data) {
    Mac mac = MACS.get();
    try {
      mac.init(key);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 refused its key", e);
    }
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private interface Factory<T> {
    T get() throws GeneralSecurityException;
  }

  /** Every JVM has SHA-256 and HMAC-SHA256 (the Java SE specification requires them). */
  private static <T> T instance(Factory<T> f) {
    try {
      return f.get();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
