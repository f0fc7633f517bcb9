package io.strata.s3;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 as S3 takes it: in the Authorization header or in a presigned URL's
 * query. Checks the request's signature against the secret of the access key it names, its time
 * against the clock (15 minutes either way) or the URL's expiry, and gives what a streaming body's
 * chunk signatures are checked with ({@link AwsChunkedInput}).
 */
final class SigV4 {
  static final String ALGORITHM = "AWS4-HMAC-SHA256";
  static final String UNSIGNED = "UNSIGNED-PAYLOAD";
  static final String STREAMING_SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
  static final String STREAMING_SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
  static final String STREAMING_UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
  static final String EMPTY_SHA256 =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  static final Duration MAX_SKEW = Duration.ofMinutes(15);
  static final Duration MAX_PRESIGN = Duration.ofDays(7);

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final HexFormat HEX = HexFormat.of();

  /**
   * Who signed a request, and what its body is to be checked with: the payload hash is the
   * x-amz-content-sha256 claim (a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* form).
   */
  static final class Signed {
    private final String accessKey;
    private final String amzDate;
    private final String scope;
    private final byte[] signingKey;
    private final String seedSignature;
    private final String payloadHash;

    Signed(
        String accessKey,
        String amzDate,
        String scope,
        byte[] signingKey,
        String seedSignature,
        String payloadHash) {
      this.accessKey = accessKey;
      this.amzDate = amzDate;
      this.scope = scope;
      this.signingKey = signingKey.clone();
      this.seedSignature = seedSignature;
      this.payloadHash = payloadHash;
    }

    String accessKey() {
      return accessKey;
    }

    String scope() {
      return scope;
    }

    String seedSignature() {
      return seedSignature;
    }

    String payloadHash() {
      return payloadHash;
    }

    boolean streaming() {
      return payloadHash.startsWith("STREAMING-");
    }

    /** The signature of a chunk (or, with {@code trailer}, of the trailing headers). */
    String chain(String previous, String hashOfChunk, boolean trailer) {
      String toSign =
          trailer
              ? "AWS4-HMAC-SHA256-TRAILER\n"
                  + amzDate
                  + "\n"
                  + scope
                  + "\n"
                  + previous
                  + "\n"
                  + hashOfChunk
              : "AWS4-HMAC-SHA256-PAYLOAD\n"
                  + amzDate
                  + "\n"
                  + scope
                  + "\n"
                  + previous
                  + "\n"
                  + EMPTY_SHA256
                  + "\n"
                  + hashOfChunk;
      return HEX.formatHex(hmac(signingKey, toSign));
    }
  }

  /** The secret of an access key, if the endpoint knows the key. */
  interface Secrets {
    Optional<String> secretOf(String accessKey);
  }

  private SigV4() {}

  /** Whether {@code r} carries a signature of any form this endpoint takes (valid or not). */
  static boolean signs(S3Request r) {
    return r.header("authorization") != null || r.has("X-Amz-Signature") || SigV2Query.applies(r);
  }

  /** Checks {@code r}'s signature; an {@link S3Error} says why it does not hold. */
  static Signed verify(S3Request r, Secrets secrets, Instant now) {
    String auth = r.header("authorization");
    if (auth != null) {
      return verifyHeader(r, auth, secrets, now);
    }
    if (r.has("X-Amz-Signature")) {
      return verifyPresigned(r, secrets, now);
    }
    if (SigV2Query.applies(r)) {
      return SigV2Query.verify(r, secrets, now);
    }
    throw unsigned();
  }

  /** The answer to an unsigned request where anonymous access is not open. */
  static S3Error unsigned() {
    return S3Error.accessDenied(
        "Anonymous access is not allowed: sign requests with AWS Signature Version 4");
  }

  private static Signed verifyHeader(S3Request r, String auth, Secrets secrets, Instant now) {
    if (!auth.startsWith(ALGORITHM + " ")) {
      throw new S3Error(
          400,
          "AuthorizationHeaderMalformed",
          "only " + ALGORITHM + " (Signature Version 4) is supported");
    }
    String credential = null;
    String signedHeaders = null;
    String signature = null;
    for (String part : auth.substring(ALGORITHM.length() + 1).split(",", -1)) {
      String p = part.trim();
      if (p.startsWith("Credential=")) {
        credential = p.substring("Credential=".length());
      } else if (p.startsWith("SignedHeaders=")) {
        signedHeaders = p.substring("SignedHeaders=".length());
      } else if (p.startsWith("Signature=")) {
        signature = p.substring("Signature=".length());
      }
    }
    if (credential == null || signedHeaders == null || signature == null) {
      throw new S3Error(
          400,
          "AuthorizationHeaderMalformed",
          "the Authorization header needs Credential, SignedHeaders and Signature");
    }
    String amzDate = r.header("x-amz-date");
    if (amzDate == null) {
      amzDate = r.header("date") == null ? null : httpDateToAmz(r.header("date"));
    }
    if (amzDate == null) {
      throw S3Error.accessDenied("the request has no x-amz-date");
    }
    Instant at = parseAmzDate(amzDate);
    if (Duration.between(at, now).abs().compareTo(MAX_SKEW) > 0) {
      throw new S3Error(
          403,
          "RequestTimeTooSkewed",
          "The difference between the request time ("
              + at
              + ") and the server's ("
              + now
              + ") is more than 15 minutes");
    }
    String payload = r.header("x-amz-content-sha256");
    if (payload == null) {
      throw S3Error.invalidRequest(
          "Missing required header for this request: x-amz-content-sha256");
    }
    // What AWS requires signed: otherwise a captured request could be sent again with a new date,
    // to another host, or with another body.
    List<String> signed = List.of(signedHeaders.split(";", -1));
    for (String required : List.of("host", "x-amz-content-sha256")) {
      if (!signed.contains(required)) {
        throw S3Error.accessDenied("SignedHeaders must include " + required);
      }
    }
    if (!signed.contains(r.header("x-amz-date") != null ? "x-amz-date" : "date")) {
      throw S3Error.accessDenied("SignedHeaders must include the request's date (x-amz-date)");
    }
    return check(r, credential, amzDate, signedHeaders, signature, payload, secrets, false);
  }

  private static Signed verifyPresigned(S3Request r, Secrets secrets, Instant now) {
    if (!ALGORITHM.equals(r.param("X-Amz-Algorithm"))) {
      throw S3Error.accessDenied("X-Amz-Algorithm must be " + ALGORITHM);
    }
    String credential = r.param("X-Amz-Credential");
    String amzDate = r.param("X-Amz-Date");
    String expires = r.param("X-Amz-Expires");
    String signedHeaders = r.param("X-Amz-SignedHeaders");
    if (credential == null || amzDate == null || expires == null || signedHeaders == null) {
      throw S3Error.accessDenied(
          "a presigned URL needs X-Amz-Credential, X-Amz-Date, X-Amz-Expires and"
              + " X-Amz-SignedHeaders");
    }
    Instant at = parseAmzDate(amzDate);
    long seconds;
    try {
      seconds = Long.parseLong(expires);
    } catch (NumberFormatException e) {
      throw S3Error.accessDenied("X-Amz-Expires is not a number of seconds");
    }
    if (seconds < 1 || seconds > MAX_PRESIGN.toSeconds()) {
      throw S3Error.accessDenied("X-Amz-Expires must be between 1 and 604800 seconds");
    }
    if (now.isAfter(at.plusSeconds(seconds))) {
      throw S3Error.accessDenied("Request has expired");
    }
    if (at.isAfter(now.plus(MAX_SKEW))) {
      throw S3Error.accessDenied("Request is not valid yet (X-Amz-Date is in the future)");
    }
    if (!List.of(signedHeaders.split(";", -1)).contains("host")) {
      throw S3Error.accessDenied("X-Amz-SignedHeaders must include host");
    }
    String payload = Optional.ofNullable(r.header("x-amz-content-sha256")).orElse(UNSIGNED);
    return check(
        r, credential, amzDate, signedHeaders, r.param("X-Amz-Signature"), payload, secrets, true);
  }

  private static Signed check(
      S3Request r,
      String credential,
      String amzDate,
      String signedHeaders,
      String signature,
      String payload,
      Secrets secrets,
      boolean presigned) {
    // Credential = ACCESS_KEY/yyyyMMdd/region/s3/aws4_request
    String[] c = credential.split("/", -1);
    if (c.length != 5 || !c[3].equals("s3") || !c[4].equals("aws4_request")) {
      throw new S3Error(
          400,
          "AuthorizationHeaderMalformed",
          "the credential must be ACCESS_KEY/DATE/REGION/s3/aws4_request");
    }
    if (!amzDate.startsWith(c[1])) {
      throw new S3Error(
          400,
          "AuthorizationHeaderMalformed",
          "the credential's date " + c[1] + " is not the request's (" + amzDate + ")");
    }
    String secret =
        secrets
            .secretOf(c[0])
            .orElseThrow(
                () ->
                    new S3Error(
                        403,
                        "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records"));
    String scope = c[1] + "/" + c[2] + "/s3/aws4_request";
    String canonical = canonicalRequest(r, signedHeaders, payload, presigned);
    String toSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + sha256Hex(canonical);
    byte[] key = signingKey(secret, c[1], c[2]);
    String expected = HEX.formatHex(hmac(key, toSign));
    if (!MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII),
        signature.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII))) {
      throw new S3Error(
          403,
          "SignatureDoesNotMatch",
          "The request signature we calculated does not match the signature you provided. Check"
              + " your key and signing method.");
    }
    return new Signed(c[0], amzDate, scope, key, expected, payload);
  }

  static String canonicalRequest(
      S3Request r, String signedHeaders, String payload, boolean presigned) {
    StringBuilder out = new StringBuilder(256);
    out.append(r.method()).append('\n');
    out.append(AwsUri.encode(AwsUri.decode(r.rawPath()), true)).append('\n');
    List<String> params = new ArrayList<>();
    for (Map.Entry<String, String> e : r.query()) {
      if (presigned && e.getKey().equals("X-Amz-Signature")) {
        continue;
      }
      params.add(AwsUri.encode(e.getKey(), false) + "=" + AwsUri.encode(e.getValue(), false));
    }
    params.sort(null);
    out.append(String.join("&", params)).append('\n');
    for (String name : signedHeaders.split(";", -1)) {
      List<String> values = r.headers().getAll(name);
      if (values.isEmpty()) {
        throw S3Error.accessDenied("a signed header is missing from the request: " + name);
      }
      out.append(name).append(':');
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append(values.get(i).trim().replaceAll(" +", " "));
      }
      out.append('\n');
    }
    out.append('\n').append(signedHeaders).append('\n').append(payload);
    return out.toString();
  }

  /**
   * Signing keys derived lately, by secret, day and region: four HMACs a request saved; bounded, so
   * that varied dates or regions cannot grow it.
   */
  private static final Cache<String, byte[]> SIGNING_KEYS =
      Caffeine.newBuilder().maximumSize(4096).build();

  static byte[] signingKey(String secret, String date, String region) {
    return SIGNING_KEYS.get(
        secret + "\n" + date + "\n" + region,
        id -> {
          byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
          k = hmac(k, region);
          k = hmac(k, "s3");
          return hmac(k, "aws4_request");
        });
  }

  static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
    }
  }

  static String sha256Hex(String s) {
    return HEX.formatHex(sha256().digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  static Instant parseAmzDate(String amzDate) {
    try {
      return LocalDateTime.parse(amzDate, AMZ_DATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw S3Error.accessDenied("X-Amz-Date is not yyyyMMdd'T'HHmmss'Z': " + amzDate);
    }
  }

  private static String httpDateToAmz(String httpDate) {
    try {
      return AMZ_DATE.format(
          java.time.ZonedDateTime.parse(httpDate, DateTimeFormatter.RFC_1123_DATE_TIME));
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
