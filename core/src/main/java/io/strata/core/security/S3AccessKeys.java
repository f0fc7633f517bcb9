package io.strata.core.security;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;

/**
 * S3 access keys of a TOKEN-mode cluster's users (issue 56), derived from a user's token so that
 * nothing is kept anywhere: the access key carries the token's payload (user, role, expiry) in the
 * open, as the token does; the secret key is an HMAC keyed by the token's signature, which only the
 * token's holder and the holders of the cluster secret can compute. The S3 endpoint, holding the
 * secret, recomputes the signature from the payload and so the secret key, and acts as that user.
 */
public final class S3AccessKeys {
  /** What every derived access key starts with; keys of the endpoint's credentials file do not. */
  public static final String PREFIX = "STRATA";

  /** Longer access keys are not decoded (a derived one is under 120 characters). */
  private static final int MAX_LENGTH = 200;

  private static final byte[] PURPOSE = "strata s3 secret key v1".getBytes(StandardCharsets.UTF_8);

  /** An access key and its secret key, as S3 clients take them. */
  public record Pair(String accessKey, String secretKey) {}

  /** Who a derived access key names, until when, and its secret key. */
  public record Resolved(Principal principal, Instant expiry, String secretKey) {}

  private S3AccessKeys() {}

  /** The key pair of {@code token} (as {@code fsadmin token create} printed it). */
  public static Pair of(String token) {
    byte[][] parts = Tokens.parts(token);
    return new Pair(
        PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(parts[0]),
        secretKey(parts[1]));
  }

  /** Whether {@code accessKey} is of the derived kind (it may still be forged or expired). */
  public static boolean derived(String accessKey) {
    return accessKey.startsWith(PREFIX);
  }

  /**
   * Who {@code accessKey} names and its secret key, where {@code secret} is the cluster's; the key
   * must be a {@link #derived} one. UNAUTHENTICATED when it is malformed or expired at {@code now}.
   * A forged key resolves to a secret key its forger does not know: its signatures do not match.
   */
  public static Resolved resolve(ClusterSecret secret, String accessKey, Instant now) {
    if (!derived(accessKey) || accessKey.length() > MAX_LENGTH) {
      throw malformed();
    }
    byte[] payload;
    try {
      payload = Base64.getUrlDecoder().decode(accessKey.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw malformed();
    }
    Principal who = Tokens.principalOf(payload, now);
    return new Resolved(who, Tokens.expiryOf(payload), secretKey(secret.sign(payload)));
  }

  private static String secretKey(byte[] tokenSignature) {
    // 40 characters, as AWS's secret keys have: 30 bytes of the HMAC in base64url.
    byte[] mac = ClusterSecret.hmac(tokenSignature, PURPOSE);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(mac, 30));
  }

  private static StrataException malformed() {
    return new StrataException(StatusCode.UNAUTHENTICATED, "not an access key of this cluster");
  }
}
