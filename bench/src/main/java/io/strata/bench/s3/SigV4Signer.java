package io.strata.bench.s3;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature V4 in the Authorization header, as an S3 client signs a request whose body it does
 * not hash ({@code UNSIGNED-PAYLOAD}): what the bench's client sends, to the S3 endpoint and (for
 * the same bytes on the wire) to the raw server, which ignores it. Keys and paths are the bench's
 * own (letters, digits, '/', '.', '-'), so the path is its own canonical form.
 */
final class SigV4Signer {
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final HexFormat HEX = HexFormat.of();
  private static final String SIGNED_HEADERS = "host;x-amz-content-sha256;x-amz-date";

  private final String accessKey;
  private final String secretKey;
  private final String region;
  private String keyDate = "";
  private byte[] signingKey;

  SigV4Signer(String accessKey, String secretKey, String region) {
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    this.region = region;
  }

  /** The headers to send with {@code method path?query} to {@code host}, signed at {@code now}. */
  Map<String, String> sign(
      String method, String path, Map<String, String> query, String host, Instant now) {
    String amzDate = AMZ_DATE.format(now);
    String date = amzDate.substring(0, 8);
    String scope = date + "/" + region + "/s3/aws4_request";
    String canonical =
        method
            + "\n"
            + path
            + "\n"
            + canonicalQuery(query)
            + "\nhost:"
            + host
            + "\nx-amz-content-sha256:UNSIGNED-PAYLOAD\nx-amz-date:"
            + amzDate
            + "\n\n"
            + SIGNED_HEADERS
            + "\nUNSIGNED-PAYLOAD";
    String toSign =
        "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + HEX.formatHex(sha256(canonical));
    String signature = HEX.formatHex(hmac(signingKey(date), toSign));
    Map<String, String> headers = new TreeMap<>();
    headers.put("x-amz-date", amzDate);
    headers.put("x-amz-content-sha256", "UNSIGNED-PAYLOAD");
    headers.put(
        "authorization",
        "AWS4-HMAC-SHA256 Credential="
            + accessKey
            + "/"
            + scope
            + ", SignedHeaders="
            + SIGNED_HEADERS
            + ", Signature="
            + signature);
    return headers;
  }

  /** {@code query} as the canonical request and the request line write it: sorted, encoded. */
  static String canonicalQuery(Map<String, String> query) {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(query)
        .forEach(
            (k, v) ->
                b.append(b.length() == 0 ? "" : "&")
                    .append(encode(k))
                    .append('=')
                    .append(encode(v)));
    return b.toString();
  }

  private static String encode(String s) {
    StringBuilder b = new StringBuilder();
    for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~') {
        b.append((char) c);
      } else {
        b.append('%').append(HEX.withUpperCase().toHexDigits(c));
      }
    }
    return b.toString();
  }

  /** The day's signing key, derived once a day as SDKs do. */
  private byte[] signingKey(String date) {
    if (!date.equals(keyDate)) {
      byte[] k = hmac(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), date);
      k = hmac(k, region);
      k = hmac(k, "s3");
      signingKey = hmac(k, "aws4_request");
      keyDate = date;
    }
    return signingKey;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
