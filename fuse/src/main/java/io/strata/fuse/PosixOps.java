package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.client.WriteOptions;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;
import io.strata.core.proto.TimeChange;
import io.strata.core.ufs.PosixModes;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.UnaryOperator;
import jnr.ffi.Pointer;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * The mount's POSIX operations beyond reading and writing bytes: links, special files, numeric
 * owners and times, and who a new entry belongs to. Each is one call to the under-storage through
 * the owning worker; a store that cannot hold something answers NOT_PERMITTED (EPERM), never
 * ENOSYS.
 */
final class PosixOps {
  private static final int S_ISGID = 02000;

  /** utimensat's "now" and "leave unchanged", in tv_nsec (the kernel loop sends them too). */
  static final long UTIME_NOW = (1L << 30) - 1;

  static final long UTIME_OMIT = (1L << 30) - 2;

  private final FileSystem fs;

  PosixOps(FileSystem fs) {
    this.fs = fs;
  }

  /**
   * What a new entry of {@code path} made by {@code uid}:{@code gid} gets, as the kernel's own file
   * systems give it: the creator's user; the folder's group where the folder is setgid (and a new
   * folder there is setgid too), else the creator's group.
   */
  NewEntry newEntry(String path, int mode, boolean folder, long uid, long gid) {
    StrataPath p = StrataPath.of(path);
    PosixAttributes parent = p.isRoot() ? null : fs.getStatus(p.parent().toString()).posix();
    if (parent != null && (parent.getMode() & S_ISGID) != 0) {
      return new NewEntry(folder ? mode | S_ISGID : mode, uid, parent.getGid());
    }
    return new NewEntry(mode, uid, gid);
  }

  int symlink(String target, String path, NewEntry entry) {
    fs.createSymlink(path, target, entry);
    return 0;
  }

  /** The link's target, cut to {@code size - 1} bytes and NUL-terminated, as readlink wants. */
  int readlink(String path, Pointer buf, long size) {
    FileInfo f = fs.getStatus(path);
    if (f.type() != FileType.SYMLINK) {
      return -Errno.EINVAL;
    }
    byte[] target = f.posix().getSymlinkTarget().getBytes(StandardCharsets.UTF_8);
    int n = (int) Math.min(target.length, size - 1);
    buf.put(0, target, 0, n);
    buf.putByte(n, (byte) 0);
    return 0;
  }

  int link(String existing, String path) {
    fs.createHardLink(existing, path);
    return 0;
  }

  /** mknod(2): a regular file (empty), a FIFO, a socket or a device node. */
  int mknod(String path, int mode, long rdev, NewEntry entry) {
    FileType type = PosixModes.type(mode);
    if (type == FileType.DIRECTORY || type == FileType.SYMLINK) {
      return -Errno.EINVAL;
    }
    if (type == FileType.REGULAR) {
      fs.create(path, new WriteOptions(false, null, mode & 07777, entry.uid(), entry.gid()))
          .close();
    } else {
      fs.createSpecial(path, type, rdev, entry);
    }
    return 0;
  }

  /**
   * chown; a file still being written through the mount (cp -a and tar change the open file) gets
   * it once it is published.
   */
  int chown(String path, long uid, long gid, Optional<OpenFile.Writer> writer) {
    long u = unchanged(uid) ? -1 : uid;
    long g = unchanged(gid) ? -1 : gid;
    if (!pending(writer, e -> new NewEntry(e.mode(), u < 0 ? e.uid() : u, g < 0 ? e.gid() : g))) {
      fs.setOwnerIds(path, u, g);
    }
    return 0;
  }

  /** chmod, of a file still being written as {@link #chown}. */
  int chmod(String path, int mode, Optional<OpenFile.Writer> writer) {
    if (!pending(writer, e -> new NewEntry(mode & 07777, e.uid(), e.gid()))) {
      fs.setMode(path, mode & 07777);
    }
    return 0;
  }

  /** Changes the entry of a writer not published yet; false if there is none. */
  private static boolean pending(Optional<OpenFile.Writer> writer, UnaryOperator<NewEntry> change) {
    if (writer.isEmpty()) {
      return false;
    }
    OpenFile.Writer w = writer.get();
    synchronized (w) {
      if (w.committed || !w.started()) {
        return false;
      }
      w.entry = change.apply(w.entry);
      w.entryChanged = true;
      return true;
    }
  }

  /**
   * utimensat: access then modification time, each a time, UTIME_NOW or UTIME_OMIT. A file still
   * being written through the mount gets them once it is published.
   */
  int utimens(String path, Timespec[] times, Optional<OpenFile.Writer> writer) {
    TimeChange atime = change(times[0]);
    TimeChange mtime = change(times[1]);
    if (writer.isPresent()) {
      OpenFile.Writer w = writer.get();
      synchronized (w) {
        if (!w.committed && w.started()) {
          w.atime = atime;
          w.mtime = mtime;
          return 0;
        }
      }
    }
    fs.setTimes(path, atime, mtime);
    return 0;
  }

  private static TimeChange change(Timespec t) {
    long nsec = t.tv_nsec.longValue();
    if (nsec == UTIME_OMIT) {
      return TimeChange.getDefaultInstance();
    }
    if (nsec == UTIME_NOW) {
      return TimeChange.newBuilder().setNow(true).build();
    }
    return TimeChange.newBuilder().setEpochNs(t.tv_sec.get() * 1_000_000_000L + nsec).build();
  }

  /** chown's "leave as it is": -1, as a signed or an unsigned 32-bit id. */
  private static boolean unchanged(long id) {
    return id < 0 || id == 0xFFFF_FFFFL;
  }
}
