package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Where a local folder's paths lead: every path under the root, and the real location (after
 * symbolic links) of the path or its nearest existing ancestor still under the root's. A path too
 * long for the kernel whole is reached through its folder held open ({@link LongPath}), and none of
 * its components may be a link.
 */
final class LocalPaths {
  private final Path root;

  LocalPaths(Path root) {
    this.root = root;
  }

  /**
   * A path of the store, usable until {@link #close} (which lets a long path's folder go).
   *
   * @param path what the kernel is given
   */
  record Located(Path path, LongPath held) implements Closeable {
    @Override
    public void close() {
      if (held != null) {
        held.close();
      }
    }
  }

  /** A path whose bytes are read: it must lie inside the root once every link is followed. */
  Located target(StrataPath path) {
    return locate(path, false, false);
  }

  /**
   * A path whose entry itself is looked at or changed (a symbolic link is not followed): its folder
   * must lie inside the root.
   */
  Located entry(StrataPath path) {
    return locate(path, true, false);
  }

  /** A file about to be written, its missing folders made if {@code createFolders}. */
  Located newFile(StrataPath path, boolean createFolders) {
    return locate(path, false, createFolders);
  }

  private Located locate(StrataPath path, boolean entry, boolean createFolders) {
    Path p = path.isRoot() ? root : root.resolve(path.toString().substring(1));
    if (!LongPath.tooLong(p)) {
      requireInside(entry && !path.isRoot() ? p.getParent() : p, path);
      if (createFolders) {
        try {
          Files.createDirectories(p.getParent());
        } catch (IOException e) {
          throw IoErrors.toStrata(e, path.toString());
        }
      }
      return new Located(p, null);
    }
    LongPath held;
    try {
      held = LongPath.open(root, root.relativize(p), createFolders);
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
    if (!entry && Files.isSymbolicLink(held.path())) {
      held.close();
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          path + " is a symbolic link at a path too long to follow it safely");
    }
    return new Located(held.path(), held);
  }

  private void requireInside(Path p, StrataPath path) {
    Path existing = p;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null || !existing.startsWith(root)) {
      throw StrataException.notFound("under-storage folder " + root + " does not exist");
    }
    try {
      Path realRoot = root.toRealPath();
      if (!existing.toRealPath().startsWith(realRoot)) {
        throw new StrataException(
            StatusCode.PERMISSION_DENIED, path + " leads outside the mount's under-storage");
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }
}
