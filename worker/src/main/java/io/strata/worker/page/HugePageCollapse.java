package io.strata.worker.page;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.constants.platform.Errno;
import jnr.constants.platform.OpenFlags;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the kernel to back 2 MiB stretches of a tmpfs file with huge pages ({@code MADV_COLLAPSE},
 * Linux 6.1+), whatever the system's transparent-huge-page settings short of {@code deny}: a tmpfs
 * such as {@code /dev/shm} otherwise holds a file in 4 KiB pages, and sendfile from those ran at
 * 0.6-0.8 of the speed from the same bytes in huge pages (4 readers of a domain socket).
 *
 * <p>The JDK can neither place a mapping nor call madvise, so this maps each stretch itself, at an
 * address aligned as the file offset is (a huge page is mapped only there), through a descriptor of
 * its own, and unmaps it at once: the huge pages belong to the file, and every other mapping and
 * sendfile of it then reads them. Thread-safe.
 */
final class HugePageCollapse implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HugePageCollapse.class);

  static final long HUGE_PAGE = 2 << 20;

  private static final int PROT_NONE = 0;
  private static final int PROT_READ = 1;
  private static final int MAP_SHARED = 0x01;
  private static final int MAP_PRIVATE = 0x02;
  private static final int MAP_FIXED = 0x10;
  private static final int MAP_ANONYMOUS = 0x20;
  private static final int MAP_NORESERVE = 0x4000;
  private static final long MAP_FAILED = -1;
  private static final int MADV_COLLAPSE = 25;

  /**
   * libc, as jnr-ffi binds it. Addresses are {@link Pointer}s: with a Java long in their place,
   * mmap failed with EINVAL.
   */
  public interface LibC {
    @SaveError
    int open(String path, int flags, int mode);

    int close(int fd);

    @SaveError
    Pointer mmap(
        Pointer addr, @size_t long length, int prot, int flags, int fd, @off_t long offset);

    int munmap(Pointer addr, @size_t long length);

    @SaveError
    int madvise(Pointer addr, @size_t long length, int advice);

    /** For {@link SlotHoles}: the memory tier's file is bound once, here. */
    @SaveError
    int fallocate(int fd, int mode, @off_t long offset, @off_t long length);
  }

  private final LibC c;
  private final Runtime runtime;
  private final int fd;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean unsupported;

  private HugePageCollapse(LibC c, int fd) {
    this.c = c;
    this.runtime = Runtime.getRuntime(c);
    this.fd = fd;
  }

  /**
   * A collapser for the file at {@code path} (opened here, so call it before the file is unlinked);
   * null where it cannot work (not Linux on x86-64 or arm64, or libc not loadable).
   */
  static HugePageCollapse open(Path path) {
    String arch = System.getProperty("os.arch");
    if (!System.getProperty("os.name").startsWith("Linux")
        || !(arch.equals("amd64") || arch.equals("aarch64"))) {
      return null;
    }
    try {
      LibC c = LibraryLoader.create(LibC.class).load("c");
      int flags = (int) (OpenFlags.O_RDWR.longValue() | OpenFlags.O_CLOEXEC.longValue());
      int fd = c.open(path.toString(), flags, 0);
      if (fd < 0) {
        LOG.debug(
            "memory tier: no huge pages, cannot open {}: {}",
            path,
            lastError(Runtime.getRuntime(c)));
        return null;
      }
      return new HugePageCollapse(c, fd);
    } catch (LinkageError | RuntimeException e) {
      LOG.debug("memory tier: no huge pages: {}", e.toString());
      return null;
    }
  }

  /**
   * Backs the file's bytes {@code [offset, offset + HUGE_PAGE)} with one huge page; false if the
   * kernel would not (none free, or it cannot at all: then later calls return false at once). The
   * bytes must lie within the file; their content is kept.
   */
  boolean collapse(long offset) {
    if (offset % HUGE_PAGE != 0) {
      throw new IllegalArgumentException(offset + " is not a multiple of " + HUGE_PAGE);
    }
    if (unsupported) {
      return false;
    }
    // Reserve twice the length, so that an aligned stretch lies inside, then map the file there.
    Pointer reserved =
        c.mmap(null, 2 * HUGE_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (failed(reserved)) {
      return false;
    }
    try {
      long aligned = (reserved.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
      Pointer at =
          c.mmap(
              Pointer.wrap(runtime, aligned),
              HUGE_PAGE,
              PROT_READ,
              MAP_SHARED | MAP_FIXED,
              fd,
              offset);
      if (failed(at)) {
        return false;
      }
      if (c.madvise(at, HUGE_PAGE, MADV_COLLAPSE) == 0) {
        return true;
      }
      Errno e = lastError(runtime);
      if (e == Errno.EINVAL || e == Errno.EPERM || e == Errno.ENOSYS) {
        // An older kernel, or huge pages denied for shared memory: the pages stay 4 KiB.
        unsupported = true;
        LOG.info("memory tier: the kernel keeps its file in small pages ({})", e);
      }
      return false;
    } finally {
      c.munmap(reserved, 2 * HUGE_PAGE);
    }
  }

  private static boolean failed(Pointer p) {
    return p == null || p.address() == MAP_FAILED;
  }

  private static Errno lastError(Runtime runtime) {
    return Errno.valueOf(runtime.getLastError());
  }

  @Override
  public void close() {
    if (!closed.getAndSet(true)) {
      c.close(fd);
    }
  }
}
