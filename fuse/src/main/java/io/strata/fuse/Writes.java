package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.client.WriteOptions;
import io.strata.core.proto.PosixAttributes;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * Writing through the mount: a file is written once, front to back, to a temporary name the client
 * renames on close. A writer's file is published at the first flush (a close(2) of one of its
 * descriptors) or fsync, so that close(2) and fsync(2) report whether it landed, durably, and
 * whoever looks next (another user, another name) sees it as it is. A flush before any write
 * publishes the file empty: that is a creat(2) and close(2), or a shell redirect closing the
 * descriptor it duplicated, whose command then writes through the duplicate; the first byte of that
 * write begins the file anew. What would change bytes in place is refused.
 */
final class Writes {
  private static final Logger LOG = LoggerFactory.getLogger(Writes.class);
  private static final int O_ACCMODE = 3;
  private static final int O_RDWR = 2;
  private static final int O_TRUNC = 01000;
  private static final int O_APPEND = 02000;

  private final FileSystem fs;
  private final OpenFiles open;
  private final FileIo io;

  /** Told when a writer begins and when it ends: meanwhile the file is being changed. */
  private final KernelView kernel;

  Writes(FileSystem fs, OpenFiles open, FileIo io, KernelView kernel) {
    this.fs = fs;
    this.open = open;
    this.io = io;
    this.kernel = kernel;
  }

  /** open(2) of an existing file for writing ({@code flags} not O_RDONLY). */
  int open(String p, int flags, FuseFileInfo fi) {
    FileInfo f = fs.getStatus(p);
    boolean keepsBytes = f.length() > 0 && (flags & O_TRUNC) == 0;
    if ((flags & O_APPEND) != 0 && keepsBytes) {
      return Errno.refuse(
          LOG,
          Errno.ENOTSUP,
          "open {}: Strata files are written once, front to back; " + "appending is not supported",
          p);
    }
    if (keepsBytes && (flags & O_ACCMODE) == O_RDWR) {
      // Tools open read-write and only read; a write would be refused (see write). The kernel
      // view does not count such a reader: it reads the current version.
      fi.fh.set(open.add(new OpenFile.Reader(p, null, () -> fs.open(p))));
      return 0;
    }
    if (keepsBytes) {
      return Errno.refuse(
          LOG,
          Errno.ENOTSUP,
          "open {}: cannot change a file's bytes in place; "
              + "truncate it (O_TRUNC) to write it anew",
          p);
    }
    return start(p, sameAs(f), true, f.length() == 0, fi);
  }

  int create(String p, NewEntry entry, FuseFileInfo fi) {
    return start(p, entry, false, false, fi);
  }

  private int start(
      String p, NewEntry entry, boolean overwrite, boolean atFirstByte, FuseFileInfo fi) {
    if (open.writerOf(p).filter(w -> !w.committed).isPresent()) {
      return Errno.refuse(
          LOG, Errno.EBUSY, "open {}: the file is being written by another open file", p);
    }
    OpenFile.Writer w = new OpenFile.Writer(p, e -> create(p, overwrite, e), atFirstByte, entry);
    if (!open.addWriter(w)) {
      w.cancel();
      return Errno.refuse(
          LOG, Errno.EBUSY, "open {}: the file is being written by another open file", p);
    }
    kernel.changing(p);
    fi.fh.set(open.add(w));
    return 0;
  }

  private FileOutStream create(String p, boolean overwrite, NewEntry e) {
    return fs.create(p, new WriteOptions(overwrite, null, Math.max(e.mode(), 0), e.uid(), e.gid()));
  }

  int write(OpenFile.Writer w, Pointer buf, int size, long offset) {
    synchronized (w) {
      if (w.committed && w.written == 0 && offset == 0 && open.addWriter(w)) {
        w.reopen(e -> create(w.path, true, e));
        kernel.changing(w.path);
      }
      if (w.committed) {
        return Errno.refuse(
            LOG,
            Errno.EIO,
            "write {}: the file was completed when one of its descriptors was "
                + "closed; write through a single descriptor",
            w.path);
      }
      if (offset != w.written) {
        return Errno.refuse(
            LOG,
            Errno.ENOTSUP,
            "write {}: at offset {} while {} bytes are written; Strata files "
                + "are written front to back",
            w.path,
            offset,
            w.written);
      }
      io.write(w, buf, size);
      w.written += size;
      return size;
    }
  }

  int flush(OpenFile.Writer w) {
    return commit(w);
  }

  int commit(OpenFile.Writer w) {
    synchronized (w) {
      if (w.committed) {
        return 0;
      }
      w.committed = true;
      try {
        if (w.started()) {
          w.out().close();
        }
        if (w.entryChanged) {
          fs.setOwnerIds(w.path, w.entry.uid(), w.entry.gid());
          if (w.entry.mode() >= 0) {
            fs.setMode(w.path, w.entry.mode());
          }
        }
        if (w.atime != null) {
          fs.setTimes(w.path, w.atime, w.mtime);
        }
      } finally {
        kernel.changed(w.path);
      }
      return 0;
    }
  }

  /**
   * Only what needs no change in place: to the current size, or to 0 (the file is written anew,
   * empty).
   */
  int truncate(String p, long size) {
    var writer = open.writerOf(p);
    if (writer.isPresent() && !writer.get().committed) {
      return writer.get().written == size
          ? 0
          : Errno.refuse(
              LOG,
              Errno.ENOTSUP,
              "truncate {}: a file being written can only grow, front to back",
              p);
    }
    FileInfo f = fs.getStatus(p);
    if (f.directory()) {
      return -Errno.EISDIR;
    }
    if (size == f.length()) {
      return 0;
    }
    if (size != 0) {
      return Errno.refuse(
          LOG, Errno.ENOTSUP, "truncate {}: only to 0 bytes (to write the file anew)", p);
    }
    NewEntry same = sameAs(f);
    fs.create(p, new WriteOptions(true, null, same.mode(), same.uid(), same.gid())).close();
    return 0;
  }

  /** A file written anew stays whose it was, with the bits it had. */
  private static NewEntry sameAs(FileInfo f) {
    PosixAttributes a = f.posix();
    return a == null
        ? new NewEntry(f.mode() & 07777, -1, -1)
        : new NewEntry(a.getMode() & 07777, a.getUid(), a.getGid());
  }
}
