package io.strata.fuse;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.Commands;
import java.util.function.Supplier;

/**
 * What a mount needs from the host: libfuse 2 (which jnr-fuse binds to) and, for a user other than
 * root, its set-uid {@code fusermount}. Without them the mount fails with one line saying what to
 * install, not with a linkage error in a log.
 */
final class FuseLibrary {
  static final String INSTALL =
      "install it: apt-get install fuse libfuse2 (Debian, Ubuntu; the fuse package replaces fuse3)"
          + " or dnf install fuse fuse-libs (Fedora, RHEL)";

  private FuseLibrary() {}

  /** Builds the file system, whose construction loads libfuse 2. */
  static <T> T load(Supplier<T> fileSystem) {
    if (!"root".equals(System.getProperty("user.name")) && !Commands.onPath("fusermount")) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION, "fusermount (libfuse 2) is missing; " + INSTALL);
    }
    try {
      return fileSystem.get();
    } catch (LinkageError e) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "libfuse 2 cannot be loaded (" + firstLine(e.getMessage()) + "); " + INSTALL);
    }
  }

  /** jnr-ffi lists every place it tried, a line each. */
  private static String firstLine(String message) {
    return message == null ? "not found" : message.strip().lines().findFirst().orElse("not found");
  }
}
