package io.strata.core.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Folders and files only the process's own user may open, whatever the umask: cached pages, their
 * index, cached metadata and the marks of writes under way are the data of every user of the
 * cluster, not of whoever shares the host.
 */
public final class OwnerOnly {
  public static final Set<PosixFilePermission> FOLDER =
      PosixFilePermissions.fromString("rwx------");
  public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

  private OwnerOnly() {}

  /** Creates {@code dir} if missing (its missing parents as the umask has them) and closes it. */
  public static Path folder(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, FOLDER);
    return dir;
  }

  /** Closes an existing file (a socket's, say) to everyone but its owner. */
  public static void file(Path file) throws IOException {
    Files.setPosixFilePermissions(file, FILE);
  }

  /** For files created owner-only from the start. */
  public static FileAttribute<Set<PosixFilePermission>> fileAttribute() {
    return PosixFilePermissions.asFileAttribute(FILE);
  }
}
