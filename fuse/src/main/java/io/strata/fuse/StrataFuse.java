package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntSupplier;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Struct;
import jnr.ffi.types.dev_t;
import jnr.ffi.types.gid_t;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import jnr.ffi.types.uid_t;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseContext;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.FuseOperations;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * Strata as a POSIX file system, over the client library. Paths under the mount point map to paths
 * under a Strata folder. Files are read with the client's read-ahead and positioned reads. Each
 * change of a file's bytes is published whole, as a new version, when the writer closes it: a file
 * written front to back streams to a temporary name in the UFS, renamed on close; one changed in
 * place is copied to a spill file on this host first ({@link Writes}). A second writer of a file is
 * refused with EBUSY, never half done. Ownership and permission bits come from the UFS; the kernel
 * enforces them (default_permissions).
 */
final class StrataFuse extends FuseStubFS {
  private static final Logger LOG = LoggerFactory.getLogger(StrataFuse.class);
  private static final int O_ACCMODE = 3;
  private static final int STAT = Struct.size(new FileStat(jnr.ffi.Runtime.getSystemRuntime()));

  private final FileSystem fs;
  private final String root;
  private final Identities ids;
  private final boolean readOnly;
  private final OpenFiles open = new OpenFiles();
  private final Openers openers = new Openers();
  private final FileIo io = new FileIo();
  private final Writes writes;
  private final InPlaceChanges inPlace;
  private final KernelView kernel;
  private final FuseMetrics metrics;
  private final PosixOps posix;
  private final XattrOps xattrs;

  // Only held: libfuse calls into it for every reply as long as the mount lasts.
  @SuppressWarnings("UnusedVariable")
  private NoFlushReplies noFlushReplies;

  StrataFuse(
      FileSystem fs,
      String root,
      Identities ids,
      boolean readOnly,
      KernelView kernel,
      FuseMetrics metrics,
      Path spillDir,
      boolean xattrs) {
    this.fs = fs;
    this.metrics = metrics;
    this.root = root.equals("/") ? "" : root;
    this.ids = ids;
    this.readOnly = readOnly;
    this.kernel = kernel;
    this.inPlace = new InPlaceChanges(fs, open, io, kernel, spillDir);
    this.writes = new Writes(fs, open, io, kernel, inPlace);
    this.posix = new PosixOps(fs);
    this.xattrs = new XattrOps(fs, open, xattrs);
  }

  /**
   * Who called, per thread of {@link KernelLoop} (libfuse's threads ask libfuse); a thread serves
   * one mount, so one for all mounts of the process.
   */
  private static final ThreadLocal<FuseContext> KERNEL_CALLER = new ThreadLocal<>();

  /** The caller of the request this thread serves. */
  @Override
  public FuseContext getContext() {
    FuseContext c = KERNEL_CALLER.get();
    return c != null ? c : super.getContext();
  }

  /** This thread serves {@link KernelLoop}'s requests, whose callers it writes in {@code c}. */
  void servingOnThisThread(FuseContext c) {
    KERNEL_CALLER.set(c);
  }

  /** The client the mount serves from. */
  FileSystem client() {
    return fs;
  }

  /** What the mount counts. */
  FuseMetrics metrics() {
    return metrics;
  }

  /** Whether {@code fh} is open for reading only (its close needs no FLUSH). */
  boolean reads(long fh) {
    return open.get(fh) instanceof OpenFile.Reader;
  }

  /** The version the reader {@code fh} reads, for a passthrough open; null if it is no reader. */
  FileInfo readerVersion(long fh) {
    return open.get(fh) instanceof OpenFile.Reader r ? r.reading.version() : null;
  }

  /** The table of operations libfuse calls, for {@link FuseLoop}. */
  FuseOperations operations() {
    return fuseOperations;
  }

  /** Mounted by {@link FuseLoop}: {@link #umount} unmounts it. */
  void mountedAt(Path at) {
    mountPoint = at;
    mounted.set(true);
  }

  /** The mount's first request, before any other is read. */
  @Override
  public Pointer init(Pointer conn) {
    noFlushReplies = NoFlushReplies.install(getContext().fuse.get(), this::reads);
    return null;
  }

  /** What a new entry of {@code p} gets, made by the calling process. */
  private NewEntry newEntry(String p, long mode, boolean folder) {
    var caller = getContext();
    return posix.newEntry(p, (int) mode & 07777, folder, caller.uid.get(), caller.gid.get());
  }

  private String strata(String fusePath) {
    return root.isEmpty() ? fusePath : fusePath.equals("/") ? root : root + fusePath;
  }

  /** Runs an operation; a StrataException becomes its errno, anything else EIO with a log line. */
  private int call(String op, String path, IntSupplier body) {
    long start = System.nanoTime();
    int result = answer(op, path, body);
    metrics.record(op, start, result);
    return result;
  }

  private static int answer(String op, String path, IntSupplier body) {
    try {
      return body.getAsInt();
    } catch (StrataException e) {
      if (e.code() != StatusCode.NOT_FOUND && e.code() != StatusCode.ALREADY_EXISTS) {
        LOG.warn("{} {}: {}", op, path, e.oneLine());
      }
      return Errno.of(e);
    } catch (RuntimeException e) {
      LOG.warn("{} {} failed", op, path, e);
      return -Errno.EIO;
    }
  }

  /**
   * Runs an operation that changes {@code paths}; the kernel view learns of it before and after.
   */
  private int change(String op, String path, List<String> paths, IntSupplier body) {
    paths.forEach(kernel::changing);
    try {
      return call(op, path, body);
    } finally {
      paths.forEach(kernel::changed);
    }
  }

  /**
   * {@code body} with its calls acting for the caller of the request this thread serves: a root
   * worker then lets the kernel check the change against the store as it is now, not against the
   * attributes this mount's kernel checked it on, which may be a minute old (issue 78: a file of
   * mallory's that alice's replaced behind the kernel's back is not mallory's to remove).
   */
  private IntSupplier asCaller(IntSupplier body) {
    return () -> CallerAccount.of(getContext()).run(body);
  }

  @Override
  public int getattr(String path, FileStat stat) {
    return call(
        "getattr",
        path,
        () -> {
          String p = strata(path);
          if (writes.fillPending(p, stat, ids)) {
            return 0;
          }
          Attributes.fill(stat, kernel.attributes(p, () -> fs.getStatus(p)), ids);
          return 0;
        });
  }

  @Override
  public int readdir(
      String path, Pointer buf, FuseFillDir filler, @off_t long offset, FuseFileInfo fi) {
    return call(
        "readdir",
        path,
        () -> {
          String p = strata(path);
          if (!fs.getStatus(p).directory()) {
            return -Errno.ENOTDIR;
          }
          filler.apply(buf, ".", null, 0);
          filler.apply(buf, "..", null, 0);
          // One entry's attributes at a time: libfuse copies what it needs before the next.
          FileStat entry =
              FileStat.of(Memory.allocateDirect(jnr.ffi.Runtime.getSystemRuntime(), STAT));
          for (FileInfo child : fs.listStatus(p)) {
            Attributes.fillEntry(entry, child);
            if (filler.apply(buf, child.name(), entry, 0) != 0) {
              break;
            }
          }
          return 0;
        });
  }

  @Override
  public int open(String path, FuseFileInfo fi) {
    return call(
        "open",
        path,
        () -> {
          String p = strata(path);
          int flags = fi.flags.get();
          if ((flags & O_ACCMODE) == 0) {
            KernelView.Reading reading = kernel.open(p, () -> fs.getStatus(p), fi);
            if (reading.version().directory()) {
              return -Errno.EISDIR;
            }
            int refused = OpenAccess.check(getContext(), p, reading.version(), flags, ids);
            if (refused != 0) {
              kernel.closed(reading);
              return refused;
            }
            fi.fh.set(open.add(new OpenFile.Reader(p, reading, () -> fs.open(reading.version()))));
            return 0;
          }
          if (readOnly) {
            return -Errno.EROFS;
          }
          FileInfo f = fs.getStatus(p);
          int refused = OpenAccess.check(getContext(), p, f, flags, ids);
          if (refused != 0) {
            return refused;
          }
          return openedToWrite(asCaller(() -> writes.open(p, f, flags, fi)).getAsInt(), fi);
        });
  }

  @Override
  public int create(String path, @mode_t long mode, FuseFileInfo fi) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    IntSupplier created = asCaller(() -> writes.create(p, newEntry(p, mode, false), fi));
    return call("create", path, () -> openedToWrite(created.getAsInt(), fi));
  }

  /**
   * An open for writing that succeeded ({@code result} 0) is its caller's (see {@link Openers}).
   */
  private int openedToWrite(int result, FuseFileInfo fi) {
    if (result == 0) {
      openers.opened(fi.fh.get(), getContext().pid.get());
    }
    return result;
  }

  @Override
  public int read(
      String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (f instanceof Update u) {
      return call("read", path, () -> io.read(u, buf, (int) size, offset));
    }
    if (!(f instanceof OpenFile.Reader r)) {
      return -Errno.EBADF;
    }
    return call("read", path, () -> io.read(r, buf, (int) size, offset));
  }

  @Override
  public int write(
      String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (f instanceof OpenFile.Reader) {
      return Errno.refuse(
          LOG, Errno.ENOTSUP, "write {}: cannot change a file's bytes in place", f.path);
    }
    long uid = getContext().uid.get();
    if (f instanceof Update u) {
      return call(
          "write",
          path,
          () -> {
            writes.dropPrivileges(u, uid);
            return inPlace.write(u, buf, (int) size, offset);
          });
    }
    if (!(f instanceof OpenFile.Writer w)) {
      return -Errno.EBADF;
    }
    return call(
        "write",
        path,
        () -> {
          writes.dropPrivileges(w, uid);
          return writes.write(w, buf, (int) size, offset, fi.fh.get());
        });
  }

  /**
   * A close(2) of a writer's descriptor: it publishes the file (see {@link Openers} for whose close
   * does). Readers' opens ask the kernel for no FLUSH ({@link NoFlushReplies}).
   */
  @Override
  public int flush(String path, FuseFileInfo fi) {
    return call(
        "flush",
        path,
        () -> {
          OpenFile f = open.get(fi.fh.get());
          if (f instanceof OpenFile.Reader
              || !openers.closePublishes(fi.fh.get(), getContext().pid.get())) {
            return 0;
          }
          if (f instanceof Update u) {
            return inPlace.publish(u);
          }
          return f instanceof OpenFile.Writer w ? writes.flush(w) : 0;
        });
  }

  @Override
  public int release(String path, FuseFileInfo fi) {
    OpenFile f = open.remove(fi.fh.get());
    openers.released(fi.fh.get());
    return call(
        "release",
        path,
        () -> {
          if (f instanceof OpenFile.Reader r) {
            if (r.reading != null) {
              kernel.closed(r.reading);
            }
            r.close();
          } else if (f instanceof OpenFile.Writer w) {
            writes.commit(w);
          } else if (f instanceof Update u) {
            inPlace.release(u);
          }
          return 0;
        });
  }

  /**
   * A file written once, front to back, becomes durable only whole: fsync of a writer publishes it
   * (its bytes forced to the UFS's device, then renamed to its name), as close would; writing on
   * after that fails. Reads have nothing to flush.
   */
  @Override
  public int fsync(String path, int isdatasync, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (f instanceof Update u) {
      return call("fsync", path, () -> inPlace.publish(u));
    }
    return f instanceof OpenFile.Writer w ? call("fsync", path, () -> writes.flush(w)) : 0;
  }

  @Override
  public int truncate(String path, @off_t long size) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return change("truncate", path, List.of(p), asCaller(() -> writes.truncate(p, size)));
  }

  @Override
  public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (f instanceof Update u) {
      return call("ftruncate", path, () -> inPlace.truncate(u, size));
    }
    if (f == null || readOnly) {
      return truncate(path, size);
    }
    // Through a descriptor: as the account that opened it, as the kernel checked it at the open.
    String p = strata(path);
    return change("ftruncate", path, List.of(p), () -> f.asOpener(() -> writes.truncate(p, size)));
  }

  @Override
  public int fallocate(
      String path, int mode, @off_t long offset, @off_t long length, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (f == null || f instanceof OpenFile.Reader) {
      return -Errno.EBADF;
    }
    return call("fallocate", path, () -> writes.allocate(f, fi.fh.get(), mode, offset, length));
  }

  @Override
  public int unlink(String path) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return change(
        "unlink",
        path,
        List.of(p),
        asCaller(
            () -> {
              if (fs.getStatus(p).directory()) {
                return -Errno.EISDIR;
              }
              fs.delete(p, false);
              return 0;
            }));
  }

  @Override
  public int mkdir(String path, @mode_t long mode) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call(
        "mkdir",
        path,
        asCaller(
            () -> {
              String p = strata(path);
              fs.mkdir(p, false, newEntry(p, mode, true));
              return 0;
            }));
  }

  @Override
  public int rmdir(String path) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return call(
        "rmdir",
        path,
        asCaller(
            () -> {
              if (!fs.getStatus(p).directory()) {
                return -Errno.ENOTDIR;
              }
              fs.delete(p, false);
              return 0;
            }));
  }

  @Override
  public int rename(String oldpath, String newpath) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String from = strata(oldpath);
    String to = strata(newpath);
    KernelView.Reading moving = kernel.renaming(from, to);
    int result = -Errno.EIO;
    try {
      result = call("rename", oldpath, asCaller(() -> replace(from, to)));
    } finally {
      kernel.renamed(from, to, moving, result == 0);
    }
    return result;
  }

  private int replace(String from, String to) {
    try {
      fs.renameReplacing(from, to);
    } catch (StrataException e) {
      if (e.code() != StatusCode.ALREADY_EXISTS) {
        throw e;
      }
      // POSIX rename replaces a file; a store that cannot (S3) refused: replace it in two steps.
      if (fs.getStatus(to).directory() || fs.getStatus(from).directory()) {
        return -Errno.EEXIST;
      }
      fs.delete(to, false);
      fs.rename(from, to);
    }
    return 0;
  }

  @Override
  public int chmod(String path, @mode_t long mode) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    IntSupplier chmod = () -> posix.chmod(p, (int) mode, open.writerOf(p));
    // The kernel clears set-id bits itself before another's write to a set-id file (killpriv), by
    // a chmod in the writer's name that the writer, not the owner, may not make: it only takes
    // privileges away, so it goes as the mount. Any other chmod is the caller's.
    return change(
        "chmod", path, List.of(p), grantsNothing(p, (int) mode) ? chmod : asCaller(chmod));
  }

  /**
   * Whether {@code mode} is {@code p}'s mode now, or that with set-id bits cleared: the kernel asks
   * for its old view of the mode without them, which may be what the file already has.
   */
  private boolean grantsNothing(String p, int mode) {
    int now = Attributes.permissions(fs.getStatus(p));
    int setId = 06000;
    return (mode & 07777 & ~setId) == (now & ~setId) && (mode & setId & ~now) == 0;
  }

  /** The kernel passes -1 (as an unsigned 32-bit id) for "leave as it is". */
  @Override
  public int chown(String path, @uid_t long uid, @gid_t long gid) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return change(
        "chown", path, List.of(p), asCaller(() -> posix.chown(p, uid, gid, open.writerOf(p))));
  }

  @Override
  public int utimens(String path, Timespec[] timespec) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return change(
        "utimens", path, List.of(p), asCaller(() -> posix.utimens(p, timespec, open.writerOf(p))));
  }

  @Override
  public int symlink(String target, String path) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return call(
        "symlink", path, asCaller(() -> posix.symlink(target, p, newEntry(p, 0777, false))));
  }

  @Override
  public int readlink(String path, Pointer buf, @size_t long size) {
    return call("readlink", path, () -> posix.readlink(strata(path), buf, size));
  }

  @Override
  public int link(String existing, String path) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String from = strata(existing);
    String p = strata(path);
    return change("link", path, List.of(from, p), asCaller(() -> posix.link(from, p)));
  }

  @Override
  public int mknod(String path, @mode_t long mode, @dev_t long rdev) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    String p = strata(path);
    return call(
        "mknod",
        path,
        asCaller(() -> posix.mknod(p, (int) mode, rdev, newEntry(p, mode & 07777, false))));
  }

  @Override
  public int getxattr(String path, String name, Pointer value, @size_t long size) {
    return call("getxattr", path, () -> xattrs.get(strata(path), name, value, size));
  }

  @Override
  public int listxattr(String path, Pointer list, @size_t long size) {
    return call("listxattr", path, () -> xattrs.list(strata(path), list, size));
  }

  @Override
  public int setxattr(String path, String name, Pointer value, @size_t long size, int flags) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call(
        "setxattr", path, asCaller(() -> xattrs.set(strata(path), name, value, size, flags)));
  }

  @Override
  public int removexattr(String path, String name) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("removexattr", path, asCaller(() -> xattrs.remove(strata(path), name)));
  }

  @Override
  public int statfs(String path, Statvfs stbuf) {
    return call(
        "statfs",
        path,
        () -> {
          Attributes.fillStatfs(stbuf);
          return 0;
        });
  }

  /**
   * Closes what is still open (the mount is going away): writers are abandoned, never committed
   * half-written.
   */
  void closeAll() {
    for (OpenFile f : open.all()) {
      try {
        if (f instanceof OpenFile.Reader r) {
          r.close();
        } else if (f instanceof OpenFile.Writer w && !w.committed) {
          w.cancel();
        } else if (f instanceof Update u) {
          u.close();
        }
      } catch (RuntimeException e) {
        LOG.debug("closing {}: {}", f.path, e.toString());
      }
    }
  }
}
