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
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 as S3 takes it: in the Authorization header or in a presigned URL's
 * query. Checks the request's signature against the secret of the access key it names, its time
 * against the clock (15 minutes either way) or the URL's expiry, and gives what a streaming body's
 * chunk signatures are checked with ({@link AwsChunkedInput}).
 */
final class SigV4 {
  private static final java.util.regex.Pattern SPACES = java.util.regex.Pattern.compile(" +");

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

  /** What x-amz-content-sha256 may claim: a SHA-256 in hex, or one of S3's named forms. */
  private static final Pattern PAYLOAD_CLAIM =
      Pattern.compile(
          "[0-9a-fA-F]{64}|UNSIGNED-PAYLOAD|STREAMING-UNSIGNED-PAYLOAD-TRAILER"
              + "|STREAMING-AWS4-(HMAC-SHA256|ECDSA-P256-SHA256)-PAYLOAD(-TRAILER)?");

  /** The secret of an access key, if the endpoint knows the key. */
  interface Secrets {
    Optional<String> secretOf(String accessKey);
  }

  private SigV4() {}

  /** Whether {@code r} carries a signature of any form this endpoint takes (valid or not). */
  static boolean signs(S3Request r) {
    return r.header("authorization") != null || presigned(r) || SigV2Query.applies(r);
  }

  /** Whether {@code r} is a presigned URL's request (complete or not). */
  private static boolean presigned(S3Request r) {
    return r.has("X-Amz-Signature") || r.has("X-Amz-Algorithm") || r.has("X-Amz-Credential");
  }

  /** Checks {@code r}'s signature; an {@link S3Error} says why it does not hold. */
  static SigV4Signed verify(S3Request r, Secrets secrets, Instant now) {
    String auth = r.header("authorization");
    if (auth != null) {
      return verifyHeader(r, auth, secrets, now);
    }
    if (presigned(r)) {
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

  private static SigV4Signed verifyHeader(S3Request r, String auth, Secrets secrets, Instant now) {
    if (!auth.startsWith(ALGORITHM + " ")) {
      throw SigV4Errors.unsupportedScheme(auth);
    }
    SigV4Errors.Form form = SigV4Errors.Form.HEADER;
    String[] components = auth.substring(ALGORITHM.length() + 1).split(",", -1);
    if (components.length < 3) {
      throw form.malformed(
          "the authorization header requires three components: Credential, SignedHeaders, and"
              + " Signature.");
    }
    Map<String, String> fields = new HashMap<>();
    for (String part : components) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq < 0) {
        throw form.malformed("the authorization component \"" + p + "\" is malformed.");
      }
      fields.putIfAbsent(p.substring(0, eq), p.substring(eq + 1));
    }
    for (String name : List.of("Credential", "SignedHeaders", "Signature")) {
      if (!fields.containsKey(name)) {
        throw form.malformed("missing " + name + ".");
      }
    }
    String credential = fields.get("Credential");
    String signedHeaders = fields.get("SignedHeaders");
    String signature = fields.get("Signature");
    String amzDate = r.header("x-amz-date");
    if (amzDate == null) {
      amzDate = r.header("date") == null ? null : httpDateToAmz(r.header("date"));
    }
    Instant at = amzDate == null ? null : parseAmzDate(amzDate);
    if (at == null) {
      throw SigV4Errors.noValidDate();
    }
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
    if (!PAYLOAD_CLAIM.matcher(payload).matches()) {
      throw S3Error.withDetail(
          400,
          "InvalidArgument",
          "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER,"
              + " STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER,"
              + " STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD,"
              + " STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER or a valid sha256 value.",
          "ArgumentName",
          "x-amz-content-sha256");
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
    return check(r, credential, amzDate, signedHeaders, signature, payload, secrets, form);
  }

  private static SigV4Signed verifyPresigned(S3Request r, Secrets secrets, Instant now) {
    SigV4Errors.Form form = SigV4Errors.Form.QUERY;
    if (!ALGORITHM.equals(r.param("X-Amz-Algorithm"))) {
      throw form.malformed(
          "X-Amz-Algorithm only supports \"" + ALGORITHM + " and AWS4-ECDSA-P256-SHA256\"");
    }
    String credential = r.param("X-Amz-Credential");
    String amzDate = r.param("X-Amz-Date");
    String expires = r.param("X-Amz-Expires");
    String signedHeaders = r.param("X-Amz-SignedHeaders");
    String signature = r.param("X-Amz-Signature");
    if (credential == null
        || amzDate == null
        || expires == null
        || signedHeaders == null
        || signature == null) {
      throw SigV4Errors.presignedIncomplete();
    }
    Instant at = parseAmzDate(amzDate);
    if (at == null) {
      throw form.malformed(
          "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
    }
    long seconds;
    try {
      seconds = Long.parseLong(expires);
    } catch (NumberFormatException e) {
      throw form.malformed("X-Amz-Expires should be a number");
    }
    if (seconds < 0) {
      throw form.malformed("X-Amz-Expires must be non-negative");
    }
    if (seconds > MAX_PRESIGN.toSeconds()) {
      throw form.malformed(
          "X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires"
              + " must be less than 604800 seconds");
    }
    if (r.has("X-Amz-Security-Token")) {
      // Strata's keys are long-term ones: a session token belongs to none of them.
      throw new S3Error(
          400, "InvalidToken", "The provided token is malformed or otherwise invalid.");
    }
    if (now.isAfter(at.plusSeconds(seconds))) {
      throw SigV4Errors.expired(now);
    }
    if (at.isAfter(now.plus(MAX_SKEW))) {
      throw S3Error.accessDenied("Request is not valid yet");
    }
    if (!List.of(signedHeaders.split(";", -1)).contains("host")) {
      throw S3Error.accessDenied("X-Amz-SignedHeaders must include host");
    }
    String payload = Optional.ofNullable(r.header("x-amz-content-sha256")).orElse(UNSIGNED);
    return check(r, credential, amzDate, signedHeaders, signature, payload, secrets, form);
  }

  private static SigV4Signed check(
      S3Request r,
      String credential,
      String amzDate,
      String signedHeaders,
      String signature,
      String payload,
      Secrets secrets,
      SigV4Errors.Form form) {
    boolean presigned = form == SigV4Errors.Form.QUERY;
    // Credential = ACCESS_KEY/yyyyMMdd/region/s3/aws4_request
    String[] c = SigV4Errors.credential(credential, amzDate, form);
    String secret = secrets.secretOf(c[0]).orElseThrow(() -> SigV4Errors.unknownAccessKey(c[0]));
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
    return new SigV4Signed(c[0], amzDate, scope, key, expected, payload);
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
        String v = values.get(i).trim();
        // Runs of spaces become one; replaceAll compiled its pattern on every header of every
        // request, where almost no value holds two spaces.
        out.append(v.contains("  ") ? SPACES.matcher(v).replaceAll(" ") : v);
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
    return ChecksumAlgorithm.digest("SHA-256");
  }

  /** The instant {@code amzDate} (yyyyMMdd'T'HHmmss'Z') names; null if it is not one. */
  static Instant parseAmzDate(String amzDate) {
    try {
      return LocalDateTime.parse(amzDate, AMZ_DATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
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
