package io.strata.fuse;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import jnr.constants.platform.Errno;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.byref.IntByReference;

/**
 * {@code /dev/fuse} through libc: the mount's first descriptor, a clone per extra thread, one
 * {@code read} per request and one {@code write} per reply. The kernel's side of the protocol.
 */
final class DevFuse {
  /** libc, as jnr-ffi binds it; errno is saved after each call that sets it. */
  public interface LibC {
    @SaveError
    int open(String path, int flags);

    @SaveError
    long read(int fd, Pointer buf, long count);

    @SaveError
    long write(int fd, Pointer buf, long count);

    /** ioctl(2) with a pointer argument (variadic in C; the pointer goes as given). */
    @SaveError
    int ioctl(int fd, long request, @In IntByReference arg);

    /** ioctl(2) with a pointer to a struct (fuse_backing_map). */
    @SaveError
    int ioctl(int fd, long request, @In Pointer arg);

    @SaveError
    int mount(String source, String target, String type, long flags, String data);

    /** statx(2): what {@code mask} asks of the file, into the 256-byte {@code buf}. */
    @SaveError
    int statx(int dirfd, String path, int flags, int mask, @Out Pointer buf);

    int close(int fd);
  }

  private static final class Holder {
    static final LibC C = LibraryLoader.create(LibC.class).load("c");
  }

  private static final int O_RDWR = 2;
  private static final int O_CLOEXEC = 02000000;

  private DevFuse() {}

  static LibC libc() {
    return Holder.C;
  }

  /** A new descriptor of /dev/fuse. */
  static int open() {
    int fd = Holder.C.open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      throw failure("cannot open /dev/fuse");
    }
    return fd;
  }

  /** A descriptor that reads the requests of {@code mountFd}'s mount (one per serving thread). */
  static int cloneOf(int mountFd) {
    int fd = open();
    if (Holder.C.ioctl(fd, FuseAbi.DEV_IOC_CLONE, new IntByReference(mountFd)) != 0) {
      StrataException e = failure("cannot clone the mount's /dev/fuse descriptor");
      Holder.C.close(fd);
      throw e;
    }
    return fd;
  }

  /** mount(2) of a FUSE file system served on {@code fd}. */
  static void mount(String source, String target, String type, long flags, String data) {
    if (Holder.C.mount(source, target, type, flags, data) != 0) {
      throw failure("cannot mount on " + target);
    }
  }

  static Errno lastError() {
    return Errno.valueOf(jnr.ffi.Runtime.getRuntime(Holder.C).getLastError());
  }

  private static StrataException failure(String what) {
    Errno e = lastError();
    StatusCode code =
        e == Errno.EPERM || e == Errno.EACCES
            ? StatusCode.PERMISSION_DENIED
            : StatusCode.FAILED_PRECONDITION;
    return new StrataException(code, what + ": " + e.description());
  }
}
