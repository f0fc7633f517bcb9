package io.strata.s3;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Presigned URLs of Signature Version 2 ({@code ?AWSAccessKeyId=&Expires=&Signature=}), which
 * boto3's {@code generate_presigned_url} still makes unless told {@code signature_version='s3v4'}.
 * Accepted for URLs only: requests that sign their headers use Version 4.
 */
final class SigV2Query {
  /** Query parameters that are part of the signed resource (S3's list of sub-resources). */
  private static final Set<String> SUB_RESOURCES =
      Set.of(
          "acl",
          "cors",
          "delete",
          "lifecycle",
          "location",
          "logging",
          "notification",
          "partNumber",
          "policy",
          "requestPayment",
          "restore",
          "tagging",
          "torrent",
          "uploadId",
          "uploads",
          "versionId",
          "versioning",
          "versions",
          "website",
          "response-cache-control",
          "response-content-disposition",
          "response-content-encoding",
          "response-content-language",
          "response-content-type",
          "response-expires");

  private SigV2Query() {}

  static boolean applies(S3Request r) {
    return r.has("AWSAccessKeyId") && r.has("Signature") && r.has("Expires");
  }

  static SigV4Signed verify(S3Request r, SigV4.Secrets secrets, Instant now) {
    String access = r.param("AWSAccessKeyId");
    long expires;
    try {
      expires = Long.parseLong(r.param("Expires"));
    } catch (NumberFormatException e) {
      throw S3Error.accessDenied("Expires is not a time in seconds");
    }
    if (now.getEpochSecond() > expires) {
      throw S3Error.accessDenied("Request has expired");
    }
    if (expires - now.getEpochSecond() > SigV4.MAX_PRESIGN.toSeconds()) {
      throw S3Error.accessDenied("a presigned URL lasts 7 days at most");
    }
    String secret =
        secrets
            .secretOf(access)
            .orElseThrow(
                () ->
                    new S3Error(
                        403,
                        "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records"));
    String toSign =
        r.method()
            + "\n"
            + orEmpty(r.header("content-md5"))
            + "\n"
            + orEmpty(r.header("content-type"))
            + "\n"
            + expires
            + "\n"
            + amzHeaders(r)
            + resource(r);
    byte[] expected = hmacSha1(secret, toSign);
    byte[] given;
    try {
      given = Base64.getDecoder().decode(r.param("Signature"));
    } catch (IllegalArgumentException e) {
      given = new byte[0];
    }
    if (!MessageDigest.isEqual(expected, given)) {
      throw new S3Error(
          403,
          "SignatureDoesNotMatch",
          "The request signature we calculated does not match the signature you provided. Check"
              + " your key and signing method.");
    }
    return new SigV4Signed(access, "", "", new byte[0], "", SigV4.UNSIGNED);
  }

  private static String amzHeaders(S3Request r) {
    TreeMap<String, List<String>> amz = new TreeMap<>();
    for (Map.Entry<String, String> h : r.headers()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith("x-amz-")) {
        amz.computeIfAbsent(name, k -> new ArrayList<>()).add(h.getValue().trim());
      }
    }
    StringBuilder out = new StringBuilder();
    amz.forEach((k, v) -> out.append(k).append(':').append(String.join(",", v)).append('\n'));
    return out.toString();
  }

  private static String resource(S3Request r) {
    // Signature V2 signs the bucket in the resource however the request addressed it.
    StringBuilder out =
        new StringBuilder(r.hosted() ? "/" + r.bucket() + r.rawPath() : r.rawPath());
    TreeMap<String, String> subs = new TreeMap<>();
    for (Map.Entry<String, String> p : r.query()) {
      if (SUB_RESOURCES.contains(p.getKey())) {
        subs.put(p.getKey(), p.getValue());
      }
    }
    char sep = '?';
    for (Map.Entry<String, String> s : subs.entrySet()) {
      out.append(sep).append(s.getKey());
      if (!s.getValue().isEmpty()) {
        out.append('=').append(s.getValue());
      }
      sep = '&';
    }
    return out.toString();
  }

  private static byte[] hmacSha1(String secret, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 is missing from this JDK", e);
    }
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
