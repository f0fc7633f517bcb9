package io.strata.core.ufs;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;

/**
 * A local folder's temporary files of writes (hidden from listings), and those of writers that
 * died: untouched for longer than a maximum age, they are removed when their folder is listed or
 * deleted.
 */
final class DeadWriters {
  private final Duration tempMaxAge;
  private final Clock clock;

  DeadWriters(Duration tempMaxAge, Clock clock) {
    this.tempMaxAge = tempMaxAge;
    this.clock = clock;
  }

  /** Deletes a file or an empty folder; a folder's dead writers' temporary files go first. */
  void deleteOne(Path p) throws IOException {
    try {
      Files.delete(p);
    } catch (DirectoryNotEmptyException e) {
      if (!holdsOnlyTemporaries(p)) {
        throw e;
      }
      try (Stream<Path> children = Files.list(p)) {
        children.forEach(this::removeIfStale);
      }
      Files.delete(p);
    }
  }

  static boolean holdsOnlyTemporaries(Path dir) {
    try (Stream<Path> children = Files.list(dir)) {
      return children.allMatch(c -> LocalOutputStream.isTemporary(c.getFileName().toString()));
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether a listing hides {@code p}: a write's temporary file (one untouched for the maximum age
   * is a dead writer's and is removed on the way).
   */
  boolean hide(Path p) {
    if (!LocalOutputStream.isTemporary(p.getFileName().toString())) {
      return false;
    }
    removeIfStale(p);
    return true;
  }

  private void removeIfStale(Path p) {
    if (!LocalOutputStream.isTemporary(p.getFileName().toString())) {
      return;
    }
    try {
      Instant touched = Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toInstant();
      if (touched.plus(tempMaxAge).isBefore(clock.instant())) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // Gone meanwhile, or not ours to remove: hidden either way.
    }
  }

  /**
   * Deletes {@code dir} and all it holds. Each folder is opened beside its parent's descriptor and
   * without following a link ({@link SecureDirectoryStream}), so that a folder a user swaps for a
   * link while the tree is deleted cannot lead the deletion out of it.
   */
  static void deleteTree(Path dir) throws IOException {
    try (DirectoryStream<Path> top = Files.newDirectoryStream(dir)) {
      if (!(top instanceof SecureDirectoryStream<Path> secure)) {
        throw new IOException("no descriptor-relative folder access here: " + dir);
      }
      deleteContents(secure);
    }
    Files.delete(dir);
  }

  private static void deleteContents(SecureDirectoryStream<Path> dir) throws IOException {
    for (Path child : dir) {
      Path name = child.getFileName();
      BasicFileAttributes a =
          dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
              .readAttributes();
      if (a.isDirectory()) {
        try (SecureDirectoryStream<Path> sub =
            dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
          deleteContents(sub);
        }
        dir.deleteDirectory(name);
      } else {
        dir.deleteFile(name);
      }
    }
  }
}
