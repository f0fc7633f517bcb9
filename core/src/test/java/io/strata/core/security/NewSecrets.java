package io.strata.core.security;

import io.strata.core.util.OwnerOnly;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Core's own tests' cluster secrets: a new random one per file, owner-only as {@link
 * ClusterSecret#load} requires. Other modules' tests take core-testkit's {@code SecretFiles}, which
 * core's tests cannot (core-testkit depends on core).
 */
public final class NewSecrets {
  private static final SecureRandom RANDOM = new SecureRandom();

  private NewSecrets() {}

  public static ClusterSecret in(Path file) {
    byte[] secret = new byte[48];
    RANDOM.nextBytes(secret);
    try {
      Files.createFile(file, OwnerOnly.fileAttribute());
      Files.writeString(file, Base64.getEncoder().encodeToString(secret));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ClusterSecret.load(file);
  }
}
