package io.strata.fuse;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import java.util.UUID;

/**
 * The folder of a mount's spill files (the bytes of files being changed in place), which hold other
 * users' data: its name cannot be guessed, it is made owner-only, and one found in its place that
 * another account made (or a link) is refused rather than written into (issue 54).
 */
final class SpillFolder {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  private SpillFolder() {}

  /** A name of this process's own under {@code base}. */
  static Path under(Path base) {
    return base.resolve(
        "strata-fuse-spill-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID());
  }

  /** Makes {@code dir} (owner-only) if it is missing; fails if it is not this account's own. */
  static void ensure(Path dir) throws IOException {
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      return;
    } catch (FileAlreadyExistsException e) {
      // Made earlier by this process, or by someone else: look.
    }
    PosixFileAttributes a =
        Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    // user.name is the JVM's own account (its effective uid's name).
    UserPrincipal me =
        dir.getFileSystem()
            .getUserPrincipalLookupService()
            .lookupPrincipalByName(System.getProperty("user.name"));
    if (!a.isDirectory() || !a.owner().equals(me) || !a.permissions().equals(OWNER_ONLY)) {
      throw new IOException(
          dir + " is not this account's own owner-only folder: spill files are not written there");
    }
  }
}
