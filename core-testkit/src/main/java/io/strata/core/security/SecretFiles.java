package io.strata.core.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Cluster secret files for tests: owner-only, as {@link ClusterSecret#load} requires. */
public final class SecretFiles {
  /** A cluster's secret. */
  public static final String CLUSTER = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==";

  /** Another cluster's (a stranger's, a forger's). */
  public static final String OTHER = "b3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXI=";

  private SecretFiles() {}

  /** {@code content} written to {@code file}, mode 600. */
  public static Path write(Path file, String content) {
    try {
      Files.writeString(file, content);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
