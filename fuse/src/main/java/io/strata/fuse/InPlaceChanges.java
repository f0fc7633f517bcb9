package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.client.WriteOptions;
import io.strata.core.proto.PosixAttributes;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.IntSupplier;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files changed in place through the mount (opened read-write, appending or over some bytes, or
 * truncated to another size): an {@link Update} copies the file at its first change and is
 * published whole, as the file's next version, at close or fsync. Until then the store and other
 * clients see the version before; the mount shows the pending size.
 */
final class InPlaceChanges {
  private static final Logger LOG = LoggerFactory.getLogger(InPlaceChanges.class);

  /**
   * The largest file the mount writes (ext4's limit): past it, writes and truncates fail with EFBIG
   * rather than stream terabytes of a hole's zeros.
   */
  static final long MAX_FILE = 16L << 40;

  private final FileSystem fs;
  private final OpenFiles open;
  private final FileIo io;

  /** Told when a change begins and when it is published: meanwhile the file is being changed. */
  private final KernelView kernel;

  /** Where files changed in place are copied while open. */
  private final Path spillDir;

  InPlaceChanges(FileSystem fs, OpenFiles open, FileIo io, KernelView kernel, Path spillDir) {
    this.fs = fs;
    this.open = open;
    this.io = io;
    this.kernel = kernel;
    this.spillDir = spillDir;
  }

  /** An open change of version {@code f} of {@code p}, copied at its first change. */
  Update of(String p, FileInfo f) {
    return new Update(p, () -> fs.open(f), spillDir);
  }

  /** An open change of what {@code p} is when the change begins. */
  Update ofCurrent(String p) {
    return new Update(p, () -> fs.open(fs.getStatus(p)), spillDir);
  }

  /** A write to a file changed in place: the first change makes it a change through the mount. */
  int write(Update u, Pointer buf, int size, long offset) {
    if (offset + size > MAX_FILE) {
      return tooLarge(u.path);
    }
    return change(
        u,
        () -> {
          io.write(u, buf, size, offset);
          return size;
        });
  }

  /** ftruncate(2) of a file open to change in place. */
  int truncate(Update u, long size) {
    if (size > MAX_FILE) {
      return tooLarge(u.path);
    }
    return change(
        u,
        () -> {
          u.truncate(size);
          return 0;
        });
  }

  /**
   * truncate(2) to another size than 0 and than its own of a file no descriptor is writing: its
   * open change's, if it has one, else one of its own, published at once.
   */
  int truncate(String p, FileInfo f, long size) {
    Optional<Update> pending = open.updateOf(p);
    if (pending.isPresent()) {
      return truncate(pending.get(), size);
    }
    Update once = of(p, f);
    truncate(once, size);
    return release(once);
  }

  /**
   * The part of fallocate(2) a change in place does: zeros over {@code [offset, end)} where the
   * file has bytes ({@code zero}), and the file grown to {@code end} unless {@code keepSize}.
   */
  int allocate(Update u, long offset, long end, boolean zero, boolean keepSize) {
    return change(
        u,
        () -> {
          long size = u.size();
          if (zero) {
            ByteBuffer zeros = ByteBuffer.allocate(64 << 10);
            for (long at = offset; at < Math.min(end, size); at += zeros.capacity()) {
              u.write(zeros.clear().limit((int) Math.min(zeros.capacity(), end - at)), at);
            }
          }
          if (!keepSize && end > size) {
            u.truncate(end);
          }
          return 0;
        });
  }

  private int change(Update u, IntSupplier change) {
    synchronized (u) {
      if (!u.dirty()) {
        kernel.changing(u.path);
        open.addUpdate(u);
      }
      return change.getAsInt();
    }
  }

  /**
   * close(2), fsync(2) or the release of a file changed in place: publishes its bytes whole as the
   * file's next version, with the owner and mode the file has then.
   */
  int publish(Update u) {
    synchronized (u) {
      if (!u.dirty()) {
        return 0;
      }
      try {
        // As the account that opened it, whoever's close or fsync publishes it.
        u.asOpener(
            () -> {
              NewEntry same = sameAs(fs.getStatus(u.path));
              // Into the file itself where the store can: its inode stays (SQLite refuses a
              // database file that moved), and so do its other names.
              u.publish(() -> fs.create(u.path, options(true, same).rewritingInPlace()));
              keepModeZero(fs, u.path, same);
              return null;
            });
      } finally {
        kernel.changed(u.path);
      }
      return 0;
    }
  }

  /** The release of a file opened to change in place. */
  int release(Update u) {
    try {
      return publish(u);
    } finally {
      open.removeUpdate(u);
      try {
        u.close();
      } catch (UncheckedIOException e) {
        LOG.warn("closing the spill file of {}: {}", u.path, e.getCause().toString());
      }
    }
  }

  static int tooLarge(String path) {
    return Errno.refuse(
        LOG, Errno.EFBIG, "{}: files through the mount are at most {} bytes", path, MAX_FILE);
  }

  /**
   * A write's mode 0 means the under-storage's default (WriteOptions): a file made with mode 0000
   * gets it once published.
   */
  static void keepModeZero(FileSystem fs, String p, NewEntry e) {
    if (e.mode() == 0) {
      fs.setMode(p, 0);
    }
  }

  static WriteOptions options(boolean overwrite, NewEntry e) {
    return new WriteOptions(overwrite, null, Math.max(e.mode(), 0), e.uid(), e.gid());
  }

  /** A file written anew stays whose it was, with the bits it had. */
  static NewEntry sameAs(FileInfo f) {
    PosixAttributes a = f.posix();
    return a == null
        ? new NewEntry(f.mode() & 07777, -1, -1)
        : new NewEntry(a.getMode() & 07777, a.getUid(), a.getGid());
  }
}
