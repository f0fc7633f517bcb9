package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import java.nio.file.Path;
import java.util.Optional;
import jnr.ffi.Pointer;

/**
 * Finds the file an open of a version passes through to: the co-located worker's whole file of it,
 * opened and checked on the descriptor (one path look-up, no exception when there is none). A
 * version of at most the fetch limit that the worker keeps no whole file of is read whole by the
 * worker first (fetch then pass through), then opened.
 */
final class BackingFiles {
  private static final int O_RDONLY = 0;
  private static final int O_CLOEXEC = 02000000;
  private static final int O_NOFOLLOW = 0400000;
  private static final int O_NONBLOCK = 04000;
  private static final int AT_EMPTY_PATH = 0x1000;
  private static final int STATX_TYPE = 0x1;
  private static final int STATX_SIZE = 0x200;
  private static final int S_IFMT = 0170000;
  private static final int S_IFREG = 0100000;

  /** struct statx: stx_mode (u16) and stx_size (u64), the same on every architecture. */
  private static final int STX_MODE = 28;

  private static final int STX_SIZE = 40;

  /** An open descriptor of a backing file (the caller closes it) and its name, for the log. */
  record Backing(int fd, Path file) {}

  private final FileSystem fs;
  private final long fetchMax;

  /**
   * @param fetchMax the largest version read whole for an open (0: none is)
   */
  BackingFiles(FileSystem fs, long fetchMax) {
    this.fs = fs;
    this.fetchMax = fetchMax;
  }

  /**
   * The version's whole file, open; null if there is none to pass through to. {@code scratch} holds
   * at least 256 bytes of the calling thread's own.
   */
  Backing open(FileInfo version, Pointer scratch) {
    Optional<Path> name = fs.wholeFile(version);
    if (name.isEmpty()) {
      return null;
    }
    int fd = openChecked(name.get(), version.length(), scratch);
    if (fd < 0 && fetchMax > 0 && fs.keepWhole(version, fetchMax)) {
      fd = openChecked(name.get(), version.length(), scratch);
    }
    return fd < 0 ? null : new Backing(fd, name.get());
  }

  /**
   * {@code file} opened for reading if it is a plain file of {@code length} bytes; -1 if it is
   * missing (not kept whole, or evicted since), or anything else. The mount may run as root and the
   * worker as an account of its own, whose folder this is: a name there that is a symbolic link (to
   * a file of root's) is not followed, a FIFO not waited on, and what was opened is what is
   * checked.
   */
  static int openChecked(Path file, long length, Pointer scratch) {
    DevFuse.LibC c = DevFuse.libc();
    int fd = c.open(file.toString(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
      return -1;
    }
    if (c.statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, scratch) == 0
        && (Short.toUnsignedInt(scratch.getShort(STX_MODE)) & S_IFMT) == S_IFREG
        && scratch.getLong(STX_SIZE) == length) {
      return fd;
    }
    c.close(fd);
    return -1;
  }
}
