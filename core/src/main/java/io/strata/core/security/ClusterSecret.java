package io.strata.core.security;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret every process of a TOKEN-mode cluster shares: it signs the tokens of users and of the
 * processes themselves. Read from a file that only its owner may read (as ssh treats its keys), of
 * at least {@link #MIN_BYTES} bytes.
 */
public final class ClusterSecret {
  static final int MIN_BYTES = 32;
  private static final String HMAC = "HmacSHA256";
  private static final String MAKE_ONE =
      "make one with: head -c 48 /dev/urandom | base64 > FILE; chmod 600 FILE";

  private final SecretKeySpec key;

  ClusterSecret(byte[] secret) {
    this.key = new SecretKeySpec(secret, HMAC);
  }

  /**
   * The secret {@code strata.security.secret.file} names, if it names one this process may read: a
   * client or a mount started by the account that holds it (local mode) uses it; others do not.
   */
  public static Optional<ClusterSecret> readable(Configuration conf) {
    String file = conf.get(SecurityKeys.SECRET_FILE);
    return file.isEmpty() || !Files.isReadable(Path.of(file))
        ? Optional.empty()
        : Optional.of(load(Path.of(file)));
  }

  /** The secret in {@code file}; a one-line error naming the file if it is missing or unsafe. */
  public static ClusterSecret load(Path file) {
    try {
      if (!Files.isRegularFile(file)) {
        throw new NoSuchFileException(file.toString());
      }
      Set<PosixFilePermission> mode =
          Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
      for (PosixFilePermission p : mode) {
        if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
          throw refused(file, "is readable by others: chmod 600 it");
        }
      }
      byte[] bytes =
          new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
              .strip()
              .getBytes(StandardCharsets.UTF_8);
      if (bytes.length < MIN_BYTES) {
        throw refused(
            file,
            "holds " + bytes.length + " bytes, fewer than " + MIN_BYTES + " (" + MAKE_ONE + ")");
      }
      return new ClusterSecret(bytes);
    } catch (NoSuchFileException e) {
      throw refused(file, "does not exist (" + MAKE_ONE + ")");
    } catch (IOException e) {
      throw refused(file, "cannot be read: " + e.getMessage());
    }
  }

  private static StrataException refused(Path file, String why) {
    return new StrataException(
        StatusCode.FAILED_PRECONDITION, "the cluster secret file " + file + " " + why);
  }

  /**
   * A key for one purpose, derived from the secret ({@code purpose} names it): what a process of
   * the cluster protects with it, only holders of the secret open.
   */
  public byte[] derive(byte[] purpose) {
    return sign(purpose);
  }

  /** HMAC-SHA256 of {@code data} under the secret. */
  byte[] sign(byte[] data) {
    return hmac(key, data);
  }

  /** HMAC-SHA256 of {@code data} under {@code key}. */
  static byte[] hmac(byte[] key, byte[] data) {
    return hmac(new SecretKeySpec(key, HMAC), data);
  }

  private static byte[] hmac(SecretKeySpec key, byte[] data) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(key);
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** Whether {@code mac} is the signature of {@code data}, compared in constant time. */
  boolean verify(byte[] data, byte[] mac) {
    return MessageDigest.isEqual(sign(data), mac);
  }
}
