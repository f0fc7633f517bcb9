package io.strata.core.ufs;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Objects;
import jnr.constants.platform.Errno;
import jnr.constants.platform.OpenFlags;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;

/**
 * The POSIX calls a local folder needs and the JDK lacks: mknod (FIFOs, sockets, devices), chmod
 * with the setuid, setgid and sticky bits, symlink with the target as given, and utimensat
 * (nanoseconds, UTIME_NOW and UTIME_OMIT, a link's own times), openat2 (a path resolved by the
 * kernel without leaving a folder) and fchmodat2 (a chmod that never follows a link). Failures are
 * the JDK's exceptions, so that {@link io.strata.core.status.IoErrors} names them as it names the
 * JDK's own.
 */
final class PosixCalls {
  /** utimensat's "now" and "leave unchanged", in tv_nsec. */
  private static final long UTIME_NOW = (1L << 30) - 1;

  private static final long UTIME_OMIT = (1L << 30) - 2;

  static final int S_IFIFO = 0010000;
  static final int S_IFCHR = 0020000;
  static final int S_IFBLK = 0060000;
  static final int S_IFSOCK = 0140000;

  private static final int AT_FDCWD = -100;
  private static final int POSIX_FADV_WILLNEED = 3;
  private static final int AT_SYMLINK_NOFOLLOW = 0x100;

  /** libc, as jnr-ffi binds it; errno is saved after each call. */
  public interface LibC {
    @SaveError
    int mknod(String path, int mode, long dev);

    @SaveError
    int chmod(String path, int mode);

    @SaveError
    int symlink(String target, String linkpath);

    @SaveError
    int openat(int dirfd, String path, int flags, int mode);

    @SaveError
    int mkdirat(int dirfd, String path, int mode);

    @SaveError
    int fchownat(int dirfd, String path, int uid, int gid, int flags);

    /**
     * A system call by number: openat2 and fchmodat2 have no libc wrapper on older distributions.
     * Only integer and pointer arguments are passed, which the variadic convention takes as given.
     */
    @SaveError
    long syscall(long number, long a, String path, @In long[] how, long size);

    @SaveError
    long syscall(long number, long a, String path, long mode, long flags);

    int close(int fd);

    /** statx(2), whose struct has one layout on every architecture (glibc 2.28 or later). */
    @SaveError
    int statx(int dirfd, String path, int flags, int mask, @Out byte[] statx);

    /** Returns 0 or the error number itself (posix_fadvise does not set errno). */
    int posix_fadvise(int fd, long offset, long length, int advice);

    /** {@code times}: atime's tv_sec and tv_nsec, then mtime's (two struct timespec on LP64). */
    @SaveError
    int utimensat(int dirfd, String path, @In long[] times, int flags);
  }

  private static final class Holder {
    static final LibC C = LibraryLoader.create(LibC.class).load("c");
  }

  private PosixCalls() {}

  /**
   * Binds libc now: a first call made while acting as a user ({@link ActingAs}) would load and
   * generate its classes with that user's rights.
   */
  static void bind() {
    Objects.requireNonNull(Holder.C);
    Objects.requireNonNull(OpenFlags.O_CLOEXEC);
    Objects.requireNonNull(Errno.EACCES);
  }

  // Linux's system call numbers, the same on x86-64 and arm64 (assigned after the tables merged).
  private static final long SYS_OPENAT2 = 437;
  private static final long SYS_FCHMODAT2 = 452;

  /** O_PATH: a descriptor that names a place without opening it (asm-generic and x86 agree). */
  private static final long O_PATH = 010000000;

  /** openat2's RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS and RESOLVE_BENEATH. */
  private static final long RESOLVE_NO_MAGICLINKS = 0x02;

  private static final long RESOLVE_NO_SYMLINKS = 0x04;

  private static final long RESOLVE_BENEATH = 0x08;

  /**
   * {@code relative} (no "." or ".." of its own; may be empty for the folder itself) in the folder
   * {@code dirfd}, resolved by the kernel without ever leaving that folder (a rename that moves a
   * component out during the walk fails with EXDEV) and without following a single link, /proc's
   * magic ones included: a link on the way fails with ELOOP ({@link PassesALink}). With {@code
   * noFollow}, a final link is the result itself; without, it fails too. The result is an O_PATH
   * descriptor: it names the place, and {@code /proc/self/fd/N} reaches it, whatever is renamed
   * meanwhile.
   *
   * <p>Why no link at all, even one that stays inside (issue 78): a user's permissions are checked
   * on statuses, some cached, and a folder that another worker's client swapped for a link after
   * they were taken led the store, as the worker's account, into a folder the user may not enter.
   * Only real folders reach a file; FUSE keeps links working, the kernel resolving them one name at
   * a time, each looked up and checked anew.
   */
  static int openBeneath(int dirfd, String relative, boolean folder, boolean noFollow, Path shown)
      throws IOException {
    long flags = O_PATH | OpenFlags.O_CLOEXEC.longValue();
    if (folder) {
      flags |= OpenFlags.O_DIRECTORY.longValue();
    }
    if (noFollow) {
      flags |= OpenFlags.O_NOFOLLOW.longValue();
    }
    long[] how = {flags, 0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    String path = relative.isEmpty() ? "." : relative;
    long fd = Holder.C.syscall(SYS_OPENAT2, dirfd, path, how, (long) how.length * Long.BYTES);
    if (fd < 0) {
      Errno e = lastError();
      if (e == Errno.EXDEV) {
        throw new LeadsOutside(shown.toString());
      }
      if (e == Errno.ELOOP) {
        throw new PassesALink(shown.toString());
      }
      if (e == Errno.ENOSYS) {
        throw new FileSystemException(
            shown.toString(), null, "this kernel lacks openat2 (Linux 5.6 or later is needed)");
      }
      fail(e, shown);
    }
    return (int) fd;
  }

  /** A path that leads out of the folder it was resolved in. */
  static final class LeadsOutside extends FileSystemException {
    LeadsOutside(String path) {
      super(path, null, "leads outside the folder");
    }
  }

  /** A path with a symbolic link on its way (or at its end, where it was to be followed). */
  static final class PassesALink extends FileSystemException {
    PassesALink(String path) {
      super(path, null, "passes a symbolic link");
    }
  }

  /** The folder {@code p} itself (an administrator's path: links followed), as O_PATH. */
  static int openPlace(Path p) throws IOException {
    return openPath(p, OpenFlags.O_DIRECTORY.longValue());
  }

  /**
   * The entry {@code p} itself, a final link not followed, as O_PATH: nothing is opened for its
   * bytes, so a FIFO or a device cannot block the caller, and {@code /proc/self/fd/N} names that
   * very inode whatever is renamed meanwhile.
   */
  static int pin(Path p) throws IOException {
    return openPath(p, OpenFlags.O_NOFOLLOW.longValue());
  }

  /** An O_PATH descriptor of {@code p}, closed on exec, with the {@code extra} flags. */
  private static int openPath(Path p, long extra) throws IOException {
    int fd =
        Holder.C.openat(
            AT_FDCWD, p.toString(), (int) (O_PATH | extra | OpenFlags.O_CLOEXEC.longValue()), 0);
    if (fd < 0) {
      check(fd, p);
    }
    return fd;
  }

  /** Makes the folder {@code name} in {@code dirfd}; false if something is there already. */
  static boolean mkdirAt(int dirfd, String name, Path shown) throws IOException {
    if (Holder.C.mkdirat(dirfd, name, 0777) == 0) {
      return true;
    }
    Errno e = lastError();
    if (e == Errno.EEXIST) {
      return false;
    }
    fail(e, shown);
    return false;
  }

  /** fchownat's flag: {@code fd} itself (an O_PATH descriptor included), no name. */
  private static final int AT_EMPTY_PATH = 0x1000;

  /**
   * Gives the open entry {@code fd} (an O_PATH descriptor too) the owner {@code uid} and group
   * {@code gid} (-1: unchanged).
   */
  static void fchown(int fd, long uid, long gid, Path shown) throws IOException {
    if (Holder.C.fchownat(fd, "", (int) uid, (int) gid, AT_EMPTY_PATH) != 0) {
      fail(lastError(), shown);
    }
  }

  static void close(int fd) {
    Holder.C.close(fd);
  }

  // Never blocks (a FIFO would wait for a writer) nor follows a final link.
  private static final int OPEN_FILE =
      (int)
          (OpenFlags.O_RDONLY.longValue()
              | OpenFlags.O_CLOEXEC.longValue()
              | OpenFlags.O_NONBLOCK.longValue()
              | OpenFlags.O_NOFOLLOW.longValue());

  /** {@code p} open for reading, to give the kernel advice about its pages; -1 if it cannot be. */
  static int openForAdvice(Path p) {
    return Holder.C.openat(AT_FDCWD, p.toString(), OPEN_FILE, 0);
  }

  /**
   * Asks the kernel to start reading {@code length} bytes at {@code offset} of {@code fd} into the
   * page cache and returns without waiting for them (POSIX_FADV_WILLNEED).
   */
  static void willNeed(int fd, long offset, long length) {
    Holder.C.posix_fadvise(fd, offset, length, POSIX_FADV_WILLNEED);
  }

  /**
   * As {@link #willNeed(int, long, long)} for the file {@code p}; nothing if it cannot be opened.
   */
  static void willNeed(Path p, long offset, long length) {
    int fd = openForAdvice(p);
    if (fd >= 0) {
      try {
        willNeed(fd, offset, length);
      } finally {
        close(fd);
      }
    }
  }

  private static Errno lastError() {
    return Errno.valueOf(Runtime.getRuntime(Holder.C).getLastError());
  }

  static void mknod(Path p, int mode, long dev) throws IOException {
    check(Holder.C.mknod(p.toString(), mode, dev), p);
  }

  /** A symbolic link at {@code p} to {@code target}, byte for byte (the JDK would normalize it). */
  static void symlink(String target, Path p) throws IOException {
    check(Holder.C.symlink(target, p.toString()), p);
  }

  private static volatile boolean noFchmodat2;

  /**
   * chmod of {@code p} itself: a link is never followed (fchmodat2 refuses one), so that a name a
   * user swaps for a link after the caller looked cannot turn this into a chmod of the link's
   * target. Kernels before 6.6 lack fchmodat2: there {@link #chmodPinned} does the same.
   */
  static void chmod(Path p, int mode) throws IOException {
    if (!noFchmodat2) {
      long r =
          Holder.C.syscall(
              SYS_FCHMODAT2, AT_FDCWD, p.toString(), mode & 07777, AT_SYMLINK_NOFOLLOW);
      if (r == 0) {
        return;
      }
      Errno e = lastError();
      if (e != Errno.ENOSYS) {
        fail(e, p);
      }
      noFchmodat2 = true;
    }
    chmodPinned(p, mode);
  }

  private static final int STATX_TYPE = 0x1;
  private static final int STATX_SIZE = 256;
  private static final int STATX_MODE_OFFSET = 0x1c;
  private static final int S_IFMT = 0170000;
  private static final int S_IFLNK = 0120000;

  /**
   * chmod of {@code p} itself without fchmodat2, as glibc's fchmodat emulates it: the entry is
   * pinned by an O_PATH descriptor that does not follow a final link, a link is refused as
   * fchmodat2 refuses it (EOPNOTSUPP), and anything else is changed through {@code
   * /proc/self/fd/N}, which names the pinned inode whatever is renamed meanwhile (issue 78: the
   * kernels before 6.6 followed a link swapped in after the caller's look).
   */
  static void chmodPinned(Path p, int mode) throws IOException {
    int fd = pin(p);
    try {
      byte[] st = new byte[STATX_SIZE];
      if (Holder.C.statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, st) != 0) {
        fail(lastError(), p);
      }
      int type =
          ((st[STATX_MODE_OFFSET] & 0xff) | (st[STATX_MODE_OFFSET + 1] & 0xff) << 8) & S_IFMT;
      if (type == S_IFLNK) {
        fail(Errno.EOPNOTSUPP, p);
      }
      check(Holder.C.chmod("/proc/self/fd/" + fd, mode & 07777), p);
    } finally {
      close(fd);
    }
  }

  /**
   * Sets the access and modification times of {@code p} itself (a link is not followed); each is
   * nanoseconds since the epoch, {@link UnderFileSystem#TIME_NOW} or {@link
   * UnderFileSystem#TIME_OMIT}.
   */
  static void setTimes(Path p, long atimeNs, long mtimeNs) throws IOException {
    long[] times = new long[4];
    timespec(times, 0, atimeNs);
    timespec(times, 2, mtimeNs);
    check(Holder.C.utimensat(AT_FDCWD, p.toString(), times, AT_SYMLINK_NOFOLLOW), p);
  }

  private static void timespec(long[] times, int at, long ns) {
    if (ns == UnderFileSystem.TIME_NOW) {
      times[at + 1] = UTIME_NOW;
    } else if (ns == UnderFileSystem.TIME_OMIT) {
      times[at + 1] = UTIME_OMIT;
    } else {
      times[at] = Math.floorDiv(ns, 1_000_000_000L);
      times[at + 1] = Math.floorMod(ns, 1_000_000_000L);
    }
  }

  private static void check(int result, Path p) throws IOException {
    if (result >= 0) {
      return;
    }
    fail(lastError(), p);
  }

  private static void fail(Errno e, Path p) throws IOException {
    if (e == Errno.ENOENT) {
      throw new NoSuchFileException(p.toString());
    }
    if (e == Errno.EEXIST) {
      throw new FileAlreadyExistsException(p.toString());
    }
    if (e == Errno.EACCES) {
      throw new AccessDeniedException(p.toString());
    }
    if (e == Errno.ENOTDIR) {
      throw new NotDirectoryException(p.toString());
    }
    throw new FileSystemException(p.toString(), null, e.description());
  }
}
