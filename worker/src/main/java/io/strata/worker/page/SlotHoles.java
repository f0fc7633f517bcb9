package io.strata.worker.page;

import io.strata.worker.page.HugePageCollapse.LibC;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.constants.platform.OpenFlags;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * Gives a freed slot of the memory tier's file fresh memory before it is written again, by punching
 * a hole over it. A page sent by sendfile is not copied: the socket holds references to the file's
 * own memory until the receiver reads it, after the send has returned and the slot has been freed.
 * Written over in place, the slot's old memory would hand the receiver the next page's bytes (seen
 * with a unix socket and with TCP on loopback: 64 KiB sent, then overwritten, arrive overwritten).
 * A punched hole leaves that memory to the socket's references and gives the slot new memory at its
 * next write.
 */
final class SlotHoles implements AutoCloseable {
  private static final int FALLOC_FL_KEEP_SIZE = 1;
  private static final int FALLOC_FL_PUNCH_HOLE = 2;

  private final LibC c;
  private final int fd;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SlotHoles(LibC c, int fd) {
    this.c = c;
    this.fd = fd;
  }

  /** For the file at {@code path}, opened here: call it before the file is unlinked. */
  static SlotHoles open(Path path) throws IOException {
    LibC c;
    try {
      c = LibraryLoader.create(LibC.class).load("c");
    } catch (LinkageError | RuntimeException e) {
      throw new IOException("cannot load libc to punch holes: " + e, e);
    }
    int flags = (int) (OpenFlags.O_RDWR.longValue() | OpenFlags.O_CLOEXEC.longValue());
    int fd = c.open(path.toString(), flags, 0);
    if (fd < 0) {
      throw new IOException("cannot open " + path + ": " + lastError(c));
    }
    return new SlotHoles(c, fd);
  }

  /** Gives {@code [offset, offset + length)} of the file fresh memory at its next write. */
  void punch(long offset, long length) throws IOException {
    if (c.fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) != 0) {
      throw new IOException("cannot punch a hole in the memory tier's file: " + lastError(c));
    }
  }

  private static String lastError(LibC c) {
    return jnr.constants.platform.Errno.valueOf(Runtime.getRuntime(c).getLastError()).description();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      c.close(fd);
    }
  }
}
