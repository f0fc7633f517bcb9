package io.strata.fuse;

import static io.strata.fuse.InPlaceChanges.MAX_FILE;
import static io.strata.fuse.InPlaceChanges.keepModeZero;
import static io.strata.fuse.InPlaceChanges.options;
import static io.strata.fuse.InPlaceChanges.sameAs;
import static io.strata.fuse.InPlaceChanges.tooLarge;

import io.strata.client.FileInfo;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * Writing through the mount. A file written front to back (created, or opened with O_TRUNC) streams
 * to a temporary name the client renames on close; a write past its end leaves a hole of zeros. A
 * writer's file is published at the first flush (a close(2) of one of its descriptors by the
 * process that opened it, see {@link Openers}) or fsync, so that close(2) and fsync(2) report
 * whether it landed, durably, and whoever looks next (another user, another name) sees it as it is.
 * A flush before any write publishes the file empty: that is a creat(2) and close(2), or a shell
 * redirect closing the descriptor it duplicated, whose command then writes through the duplicate;
 * the first byte of that write begins the file anew. A file opened to change in place (read-write,
 * appending, over some bytes) or truncated to another size is an {@link Update}: copied at its
 * first change, published whole at close. A writer that goes back (a write behind what it wrote, a
 * truncate below it) publishes what it wrote and goes on as a change in place ({@link
 * InPlaceChanges}).
 */
final class Writes {
  private static final Logger LOG = LoggerFactory.getLogger(Writes.class);
  private static final int O_TRUNC = 01000;
  private static final int O_ACCMODE = 3;
  private static final int O_RDWR = 2;

  private final FileSystem fs;
  private final OpenFiles open;
  private final FileIo io;

  /** Told when a writer begins and when it ends: meanwhile the file is being changed. */
  private final KernelView kernel;

  /** Where a writer goes on when it becomes a change in place. */
  private final InPlaceChanges inPlace;

  Writes(FileSystem fs, OpenFiles open, FileIo io, KernelView kernel, InPlaceChanges inPlace) {
    this.fs = fs;
    this.open = open;
    this.io = io;
    this.kernel = kernel;
    this.inPlace = inPlace;
  }

  /**
   * getattr of a file written through the mount and not published yet: a new file, not in the UFS
   * yet but there for whoever asks through the mount, or one changed in place, whose size is its
   * copy's. False if {@code p} has no such writer.
   */
  boolean fillPending(String p, FileStat stat, Identities ids) {
    var writer = open.writerOf(p);
    if (writer.isPresent() && !writer.get().committed && writer.get().started()) {
      OpenFile.Writer w = writer.get();
      NewEntry e;
      synchronized (w) {
        e = w.entry;
      }
      Attributes.fill(
          stat,
          false,
          w.written,
          w.createdMs,
          Math.max(e.mode(), 0),
          e.uid() >= 0 ? ids.uid(e.uid()) : ids.uid(""),
          e.gid() >= 0 ? ids.gid(e.gid()) : ids.gid(""));
      if (e.mode() == 0) {
        // Made with mode 0000 (fill shows an unknown mode, 0, as the default).
        stat.st_mode.set(FileStat.S_IFREG);
      }
      return true;
    }
    var update = open.updateOf(p);
    if (update.isPresent()) {
      Attributes.fill(stat, fs.getStatus(p), ids);
      Attributes.resize(stat, update.get().pendingSize());
      return true;
    }
    return false;
  }

  /** open(2) of existing file {@code f} at {@code p} for writing ({@code flags} not O_RDONLY). */
  int open(String p, FileInfo f, int flags, FuseFileInfo fi) {
    if (f.length() > 0 && (flags & O_TRUNC) == 0) {
      // Read-write, appending, or writing over some bytes: a change in place.
      fi.fh.set(open.add(inPlace.of(p, f)));
      return 0;
    }
    return start(p, sameAs(f), true, f.length() == 0, fi);
  }

  /**
   * create(2): a file written front to back, or, opened read-write (programs that read back what
   * they write or write out of order), published empty at once and changed in place.
   */
  int create(String p, NewEntry entry, FuseFileInfo fi) {
    if ((fi.flags.get() & O_ACCMODE) != O_RDWR) {
      return start(p, entry, false, false, fi);
    }
    fs.create(p, options(false, entry)).close();
    keepModeZero(fs, p, entry);
    fi.fh.set(open.add(inPlace.ofCurrent(p)));
    return 0;
  }

  /**
   * A write through a writer already published (fsync, or close of another descriptor) that does
   * not start the file anew, or a write behind what it wrote (a program that goes back to fill in a
   * header): the rest is a change in place of what was published, the latter publishing what it
   * wrote first. Returns the {@link Update} that now serves {@code handle}, or null if the writer
   * goes on front to back.
   */
  private Update continuing(OpenFile.Writer w, long offset, long handle) {
    synchronized (w) {
      if (!w.committed && offset < w.written) {
        commit(w);
      }
      if (!w.committed || (w.written == 0 && offset == 0)) {
        return null;
      }
      // Opened by the writer's account: it goes on writing as that account.
      Update u = w.asOpener(() -> inPlace.ofCurrent(w.path));
      open.replace(handle, w, u);
      return u;
    }
  }

  private int start(
      String p, NewEntry entry, boolean overwrite, boolean atFirstByte, FuseFileInfo fi) {
    if (open.writerOf(p).filter(w -> !w.committed).isPresent()) {
      return Errno.refuse(
          LOG, Errno.EBUSY, "open {}: the file is being written by another open file", p);
    }
    long now = System.currentTimeMillis();
    OpenFile.Writer w =
        new OpenFile.Writer(
            p, now, e -> create(p, overwrite, e, now), atFirstByte, !overwrite, entry);
    if (!open.addWriter(w)) {
      w.cancel();
      return Errno.refuse(
          LOG, Errno.EBUSY, "open {}: the file is being written by another open file", p);
    }
    kernel.changing(p);
    fi.fh.set(open.add(w));
    return 0;
  }

  /**
   * The UFS file of a writer begun at {@code createdMs}: getattr showed that time while it was
   * written, and the kernel may keep what it showed at the create past the close.
   */
  private FileOutStream create(String p, boolean overwrite, NewEntry e, long createdMs) {
    return fs.create(p, options(overwrite, e).createdAt(createdMs));
  }

  /** A write through a writer's descriptor {@code handle}. */
  int write(OpenFile.Writer w, Pointer buf, int size, long offset, long handle) {
    Update u;
    synchronized (w) {
      u = continuing(w, offset, handle);
      if (u == null) {
        return writeOn(w, buf, size, offset);
      }
    }
    return inPlace.write(u, buf, size, offset);
  }

  private int writeOn(OpenFile.Writer w, Pointer buf, int size, long offset) {
    synchronized (w) {
      if (w.committed && w.written == 0 && offset == 0 && open.addWriter(w)) {
        w.reopen(e -> create(w.path, true, e, w.createdMs));
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
      if (offset + size > MAX_FILE) {
        return tooLarge(w.path);
      }
      if (offset > w.written) {
        // A write past the end (cp of a sparse file seeks over its holes): the hole reads as zeros.
        io.writeZeros(w, offset - w.written);
        w.written = offset;
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
        // As the account that opened it, whoever's close or fsync publishes it.
        w.asOpener(() -> publish(w));
      } finally {
        kernel.changed(w.path);
      }
      return 0;
    }
  }

  /**
   * Closes {@code w}'s stream, then gives the file what was set while it was written. An owner or
   * mode it already has is not set again: a writer who is not the file's owner may not chown or
   * chmod it, and the kernel already took the set-id bits off a file such a writer wrote.
   */
  private Void publish(OpenFile.Writer w) {
    FileInfo published = null;
    if (w.started()) {
      w.out().close();
      published = w.out().published();
    }
    if (w.entryChanged) {
      NewEntry now = published == null ? null : sameAs(published);
      if (now == null || now.uid() != w.entry.uid() || now.gid() != w.entry.gid()) {
        fs.setOwnerIds(w.path, w.entry.uid(), w.entry.gid());
      }
      if (w.entry.mode() >= 0 && (now == null || now.mode() != w.entry.mode())) {
        fs.setMode(w.path, w.entry.mode());
      }
    } else if (w.started()) {
      keepModeZero(fs, w.path, w.entry);
    }
    w.xattrs.forEach((name, value) -> fs.setXattr(w.path, name, value));
    w.xattrs.clear();
    if (w.atime != null) {
      fs.setTimes(w.path, w.atime, w.mtime);
    }
    return null;
  }

  /**
   * A write by {@code uid} drops the file's setuid bit, and its setgid bit where group execution is
   * on, unless root writes: as Linux's own file systems do (the kernel leaves it to a FUSE daemon
   * that writes directly). Once per open file, at its first write.
   */
  void dropPrivileges(OpenFile f, long uid) {
    if (uid == 0 || !f.firstWrite()) {
      return;
    }
    if (f instanceof OpenFile.Writer w) {
      synchronized (w) {
        int kept = unprivileged(w.entry.mode());
        if (kept != w.entry.mode()) {
          w.entry = new NewEntry(kept, w.entry.uid(), w.entry.gid());
          w.entryChanged = true;
        }
      }
      return;
    }
    int mode = sameAs(fs.getStatus(f.path)).mode();
    int kept = unprivileged(mode);
    if (kept != mode) {
      fs.setMode(f.path, kept);
    }
  }

  private static int unprivileged(int mode) {
    if (mode < 0) {
      return mode;
    }
    int kept = mode & ~S_ISUID;
    return (kept & S_IXGRP) != 0 ? kept & ~S_ISGID : kept;
  }

  private static final int S_ISUID = 04000;
  private static final int S_ISGID = 02000;
  private static final int S_IXGRP = 0010;

  private static final int FALLOC_KEEP_SIZE = 0x01;
  private static final int FALLOC_PUNCH_HOLE = 0x02;
  private static final int FALLOC_ZERO_RANGE = 0x10;

  /**
   * fallocate(2) through descriptor {@code handle}: space for bytes {@code [offset, offset +
   * length)} (the file grows to hold them, unless KEEP_SIZE), or, punching a hole or zeroing a
   * range, zeros there. Stores allocate when bytes are written, so reserving is only the size;
   * collapsing and inserting ranges are refused (EOPNOTSUPP), as file systems that cannot do them
   * refuse.
   */
  int allocate(OpenFile f, long handle, int mode, long offset, long length) {
    if ((mode & ~(FALLOC_KEEP_SIZE | FALLOC_PUNCH_HOLE | FALLOC_ZERO_RANGE)) != 0) {
      return -Errno.ENOTSUP;
    }
    boolean keep = (mode & FALLOC_KEEP_SIZE) != 0;
    boolean zero = (mode & (FALLOC_PUNCH_HOLE | FALLOC_ZERO_RANGE)) != 0;
    if (offset < 0 || length <= 0 || ((mode & FALLOC_PUNCH_HOLE) != 0 && !keep)) {
      return -Errno.EINVAL;
    }
    long end = offset + length;
    if (end > MAX_FILE || end < 0) {
      return tooLarge(f.path);
    }
    Update u = f instanceof Update x ? x : null;
    if (f instanceof OpenFile.Writer w) {
      synchronized (w) {
        if (!w.committed && !(zero && offset < w.written)) {
          // Ahead of what a front-to-back writer wrote, a hole of zeros will do.
          if (!keep && end > w.written) {
            io.writeZeros(w, end - w.written);
            w.written = end;
          }
          return 0;
        }
        // Zeros behind what was written, or a writer already published: a change in place.
        u = continuing(w, offset, handle);
        if (u == null) {
          return keep ? 0 : truncate(f.path, end);
        }
      }
    }
    if (u == null) {
      return -Errno.EBADF;
    }
    return inPlace.allocate(u, offset, end, zero, keep);
  }

  /**
   * truncate(2): to the size it has, nothing; to 0, the file written anew, empty; to another size,
   * a change in place (of the file's open change, if it has one).
   */
  int truncate(String p, long size) {
    var writer = open.writerOf(p);
    if (writer.isPresent() && !writer.get().committed) {
      OpenFile.Writer w = writer.get();
      synchronized (w) {
        if (size > MAX_FILE) {
          return tooLarge(p);
        }
        if (size >= w.written) {
          io.writeZeros(w, size - w.written);
          w.written = size;
          return 0;
        }
        // Cut back: what was written is published, then cut as a change in place.
        commit(w);
      }
    }
    FileInfo f = fs.getStatus(p);
    if (f.directory()) {
      return -Errno.EISDIR;
    }
    if (size == f.length()) {
      return 0;
    }
    if (size > MAX_FILE) {
      return tooLarge(p);
    }
    if (size != 0) {
      return inPlace.truncate(p, f, size);
    }
    fs.create(p, options(true, sameAs(f))).close();
    return 0;
  }
}
