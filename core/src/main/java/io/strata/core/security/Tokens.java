package io.strata.core.security;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Tokens the cluster issues: a user name, a role and an expiry, signed with the cluster secret, so
 * that any process holding the secret checks them without asking anyone (no server-side state). The
 * text is {@code st1.<payload>.<signature>}, both in unpadded base64url; the payload is {@code
 * user}, {@code role} and the expiry in epoch milliseconds, a line each.
 */
public final class Tokens {
  private static final String PREFIX = "st1.";
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

  /** The longest token text accepted: a header of megabytes is refused before any decoding. */
  static final int MAX_LENGTH = 512;

  /** The longest proof ({@link #proof}) a server reads. */
  public static final int MAX_PROOF = MAX_LENGTH;

  /** The longest a token may live: a leaked token does not grant access for ever. */
  public static final Duration MAX_TTL = Duration.ofDays(366);

  private Tokens() {}

  /** Whether {@code user} may be a token's user: letters, digits, {@code ._@-}, at most 64. */
  public static boolean validUser(String user) {
    return user != null && USER.matcher(user).matches();
  }

  /** A token for {@code user} with {@code role}, valid until {@code expiry}. */
  public static String issue(ClusterSecret secret, String user, Role role, Instant expiry) {
    if (!validUser(user)) {
      throw StrataException.invalidArgument(
          "a user name is 1 to 64 letters, digits, '.', '_', '@' or '-'"
              + (user != null && user.length() <= 100 && user.matches("[\\x20-\\x7e]*")
                  ? ", not '" + user + "'"
                  : ""));
    }
    byte[] payload =
        (user + "\n" + role + "\n" + expiry.toEpochMilli()).getBytes(StandardCharsets.UTF_8);
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return PREFIX + b64.encodeToString(payload) + "." + b64.encodeToString(secret.sign(payload));
  }

  /**
   * The caller {@code token} names, if {@code secret} signed it and it has not expired at {@code
   * now}; else UNAUTHENTICATED saying which.
   */
  public static Principal verify(ClusterSecret secret, String token, Instant now) {
    if (token == null || token.isEmpty()) {
      throw unauthenticated("no token (set STRATA_TOKEN or strata.security.token.file)");
    }
    byte[][] parts = parts(token);
    if (!secret.verify(parts[0], parts[1])) {
      throw unauthenticated("the token's signature is not this cluster's");
    }
    return principalOf(parts[0], now);
  }

  /**
   * What a client sends to prove, on a connection whose server chose {@code nonce}, that it holds
   * {@code token}, without sending the token: its payload, and an HMAC of the nonce keyed by the
   * token's signature. Whoever reads it cannot use it on another connection.
   */
  public static String proof(String token, byte[] nonce) {
    byte[][] parts = parts(token);
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return PREFIX
        + b64.encodeToString(parts[0])
        + "."
        + b64.encodeToString(ClusterSecret.hmac(parts[1], nonce));
  }

  /** The caller a {@link #proof} for {@code nonce} names, checked as {@link #verify} checks. */
  public static Principal verifyProof(
      ClusterSecret secret, String proof, byte[] nonce, Instant now) {
    byte[][] parts = parts(proof);
    byte[] expected = ClusterSecret.hmac(secret.sign(parts[0]), nonce);
    if (!MessageDigest.isEqual(expected, parts[1])) {
      throw unauthenticated("the token's signature is not this cluster's");
    }
    return principalOf(parts[0], now);
  }

  /** The payload and signature (or proof) of a token's text; UNAUTHENTICATED if malformed. */
  static byte[][] parts(String token) {
    if (token.length() > MAX_LENGTH || !token.startsWith(PREFIX)) {
      throw unauthenticated("not a Strata token");
    }
    int dot = token.indexOf('.', PREFIX.length());
    if (dot < 0) {
      throw unauthenticated("not a Strata token");
    }
    try {
      Base64.Decoder b64 = Base64.getUrlDecoder();
      return new byte[][] {
        b64.decode(token.substring(PREFIX.length(), dot)), b64.decode(token.substring(dot + 1))
      };
    } catch (IllegalArgumentException e) {
      throw unauthenticated("not a Strata token");
    }
  }

  /** Who a token's payload names; UNAUTHENTICATED if malformed or expired at {@code now}. */
  static Principal principalOf(byte[] payload, Instant now) {
    String[] fields = new String(payload, StandardCharsets.UTF_8).split("\n", -1);
    if (fields.length != 3 || !validUser(fields[0])) {
      throw unauthenticated("not a Strata token");
    }
    Role role;
    long expiry;
    try {
      role = Role.valueOf(fields[1]);
      expiry = Long.parseLong(fields[2]);
    } catch (IllegalArgumentException e) {
      throw unauthenticated("not a Strata token");
    }
    if (now.toEpochMilli() >= expiry) {
      throw unauthenticated(
          "the token of " + fields[0] + " expired at " + Instant.ofEpochMilli(expiry));
    }
    return new Principal(fields[0], role);
  }

  /** The expiry of a payload {@link #principalOf} accepted. */
  static Instant expiryOf(byte[] payload) {
    String[] fields = new String(payload, StandardCharsets.UTF_8).split("\n", -1);
    return Instant.ofEpochMilli(Long.parseLong(fields[2]));
  }

  private static StrataException unauthenticated(String why) {
    return new StrataException(StatusCode.UNAUTHENTICATED, why);
  }
}
