package io.strata.core.ufs;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A local entry held by an O_PATH descriptor, its final link not followed. An O_PATH open opens
 * nothing for bytes, so a FIFO or a device at the name cannot block the worker, and {@link #path}
 * ({@code /proc/self/fd/N}) is that very inode whatever stands at the name later: its type is read
 * once, and only an entry of the type wanted is opened, through the pin. An open by name after a
 * look would open what a user swapped in meanwhile: a FIFO there held a worker thread until restart
 * (issue 78).
 */
final class Pinned implements Closeable {
  private final int fd;
  private final Path path;
  private final BasicFileAttributes attributes;

  private Pinned(int fd) throws IOException {
    this.fd = fd;
    this.path = Path.of("/proc/self/fd", Integer.toString(fd));
    try {
      this.attributes = Files.readAttributes(path, BasicFileAttributes.class);
    } catch (IOException | RuntimeException e) {
      PosixCalls.close(fd);
      throw e;
    }
  }

  /** The entry {@code p} (a path the kernel resolves: {@code /proc/self/fd/N/NAME}, say). */
  static Pinned of(Path p) throws IOException {
    return new Pinned(PosixCalls.pin(p));
  }

  /** What the kernel is given to reach this inode. */
  Path path() {
    return path;
  }

  /** The inode's own (a link's, for a link). */
  BasicFileAttributes attributes() {
    return attributes;
  }

  /**
   * The regular file pinned, opened with {@code options}; refused for anything else, in the words
   * of {@code name} (the caller's name for it).
   */
  FileChannel openFile(String name, OpenOption... options) throws IOException {
    if (!attributes.isRegularFile()) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          name + " is not a regular file now (a link, a folder, a FIFO or a device stands there)");
    }
    return FileChannel.open(path, options);
  }

  @Override
  public void close() {
    PosixCalls.close(fd);
  }
}
