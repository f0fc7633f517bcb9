package io.strata.core.ufs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An entry of a local folder whose path the kernel would refuse whole. A path of PATH_MAX bytes or
 * more (4096, its NUL included) fails every call with ENAMETOOLONG, yet a file system holds deeper
 * entries, and the under-storage folder put in front of a mount's path can pass the limit where the
 * path a program gave did not. Such an entry's folder is opened a component at a time (openat,
 * never following a link, so the walk cannot leave the root), and the entry is used as
 * /proc/self/fd/N/NAME, N being that folder's descriptor, until {@link #close}.
 */
final class LongPath implements Closeable {
  static final int PATH_MAX = 4096;

  private final int folder;
  private final Path path;

  private LongPath(int folder, String name) {
    this.folder = folder;
    Path self = Path.of("/proc/self/fd/" + folder);
    this.path = name.isEmpty() ? self : self.resolve(name);
  }

  /** Whether the kernel would refuse {@code p} whole. */
  static boolean tooLong(Path p) {
    return p.toString().getBytes(StandardCharsets.UTF_8).length >= PATH_MAX;
  }

  /**
   * The entry {@code relative} (components under {@code root}, none of them "." or "..") by way of
   * its folder, held open; with {@code createFolders}, missing folders on the way are made.
   */
  static LongPath open(Path root, Path relative, boolean createFolders) throws IOException {
    int fd = PosixCalls.openFolder(root);
    try {
      Path shown = root;
      for (int i = 0; i < relative.getNameCount() - 1; i++) {
        String name = relative.getName(i).toString();
        shown = shown.resolve(name);
        int next = PosixCalls.openFolderAt(fd, name, createFolders, shown);
        PosixCalls.close(fd);
        fd = next;
      }
      return new LongPath(fd, relative.getFileName().toString());
    } catch (IOException | RuntimeException e) {
      PosixCalls.close(fd);
      throw e;
    }
  }

  /** The entry, as a path the kernel takes while this is open. */
  Path path() {
    return path;
  }

  @Override
  public void close() {
    PosixCalls.close(folder);
  }
}
