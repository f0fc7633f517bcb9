package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.function.IntSupplier;
import jnr.ffi.Pointer;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * Strata as a POSIX file system, over the client library. Paths under the mount point map to
 * paths under a Strata folder. Files are read with the client's read-ahead and positioned reads;
 * they are written once, front to back, and appear when the writer closes them (the client's
 * write-through: a temporary name in the UFS, renamed on close). What cannot be done that way — a
 * write at another offset, a second writer, changing a file's bytes in place — is refused with
 * ENOTSUP or EBUSY and a log line, never half done. Ownership and permission bits come from the
 * UFS; the kernel enforces them (default_permissions).
 */
final class StrataFuse extends FuseStubFS {
  private static final Logger LOG = LoggerFactory.getLogger(StrataFuse.class);
  private static final int O_ACCMODE = 3;
  private static final int O_RDWR = 2;
  private static final int O_TRUNC = 01000;
  private static final int O_APPEND = 02000;
  private static final int BLOCK = 4096;

  private final FileSystem fs;
  private final String root;
  private final MetadataCache meta;
  private final Identities ids;
  private final boolean readOnly;
  private final OpenFiles open = new OpenFiles();
  private final FileIo io = new FileIo();

  StrataFuse(FileSystem fs, String root, MetadataCache meta, Identities ids, boolean readOnly) {
    this.fs = fs;
    this.root = root.equals("/") ? "" : root;
    this.meta = meta;
    this.ids = ids;
    this.readOnly = readOnly;
  }

  private String strata(String fusePath) {
    return root.isEmpty() ? fusePath : fusePath.equals("/") ? root : root + fusePath;
  }

  /** Runs an operation; a StrataException becomes its errno, anything else EIO with a log line. */
  private int call(String op, String path, IntSupplier body) {
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

  private int refuse(int errno, String why, Object... args) {
    LOG.warn(why, args);
    return -errno;
  }

  @Override
  public int getattr(String path, FileStat stat) {
    return call("getattr", path, () -> {
      String p = strata(path);
      var writer = open.writerOf(p);
      if (writer.isPresent() && !writer.get().committed) {
        // Being written here: not in the UFS yet, but it exists for whoever asks through the mount.
        OpenFile.Writer w = writer.get();
        fill(stat, false, w.written, w.createdMs, w.mode, ids.uid(""), ids.gid(""));
        return 0;
      }
      FileInfo f = meta.status(p);
      fill(stat, f.directory(), f.length(), f.mtimeMs(), f.mode(), ids.uid(f.owner()), ids.gid(f.group()));
      return 0;
    });
  }

  private void fill(FileStat stat, boolean dir, long length, long mtimeMs, int mode, long uid, long gid) {
    int perm = mode & 07777;
    if (perm == 0) {
      perm = dir ? 0755 : 0644;
    }
    stat.st_mode.set((dir ? FileStat.S_IFDIR : FileStat.S_IFREG) | perm);
    stat.st_nlink.set(dir ? 2 : 1);
    stat.st_size.set(dir ? BLOCK : length);
    stat.st_blksize.set(BLOCK);
    stat.st_blocks.set((length + 511) / 512);
    stat.st_uid.set(uid);
    stat.st_gid.set(gid);
    for (Timespec t : new Timespec[] {stat.st_mtim, stat.st_atim, stat.st_ctim}) {
      t.tv_sec.set(mtimeMs / 1000);
      t.tv_nsec.set((mtimeMs % 1000) * 1_000_000);
    }
  }

  @Override
  public int readdir(String path, Pointer buf, FuseFillDir filler, @off_t long offset, FuseFileInfo fi) {
    return call("readdir", path, () -> {
      String p = strata(path);
      if (!meta.status(p).directory()) {
        return -Errno.ENOTDIR;
      }
      filler.apply(buf, ".", null, 0);
      filler.apply(buf, "..", null, 0);
      for (FileInfo child : meta.list(p)) {
        if (filler.apply(buf, child.name(), null, 0) != 0) {
          break;
        }
      }
      return 0;
    });
  }

  @Override
  public int open(String path, FuseFileInfo fi) {
    return call("open", path, () -> {
      String p = strata(path);
      int flags = fi.flags.get();
      if ((flags & O_ACCMODE) == 0) {
        FileInfo f = meta.status(p);
        if (f.directory()) {
          return -Errno.EISDIR;
        }
        fi.fh.set(open.add(new OpenFile.Reader(p, fs.open(p))));
        return 0;
      }
      if (readOnly) {
        return -Errno.EROFS;
      }
      FileInfo f = meta.status(p);
      boolean keepsBytes = f.length() > 0 && (flags & O_TRUNC) == 0;
      if ((flags & O_APPEND) != 0 && keepsBytes) {
        return refuse(Errno.ENOTSUP, "open {}: Strata files are written once, front to back; "
            + "appending is not supported", p);
      }
      if (keepsBytes && (flags & O_ACCMODE) == O_RDWR) {
        // Tools open read-write and only read; a write would be refused (see write).
        fi.fh.set(open.add(new OpenFile.Reader(p, fs.open(p))));
        return 0;
      }
      if (keepsBytes) {
        return refuse(Errno.ENOTSUP, "open {}: cannot change a file's bytes in place; "
            + "truncate it (O_TRUNC) to write it anew", p);
      }
      return startWriting(p, f.mode(), true, fi);
    });
  }

  @Override
  public int create(String path, @mode_t long mode, FuseFileInfo fi) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("create", path, () -> startWriting(strata(path), (int) mode & 07777, false, fi));
  }

  private int startWriting(String p, int mode, boolean overwrite, FuseFileInfo fi) {
    if (open.writerOf(p).isPresent()) {
      return refuse(Errno.EBUSY, "open {}: the file is being written by another open file", p);
    }
    OpenFile.Writer w = new OpenFile.Writer(p, fs.create(p, new WriteOptions(overwrite, null, mode)), mode);
    if (!open.addWriter(w)) {
      w.out.cancel();
      return refuse(Errno.EBUSY, "open {}: the file is being written by another open file", p);
    }
    fi.fh.set(open.add(w));
    meta.invalidate(p);
    return 0;
  }

  @Override
  public int read(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (!(f instanceof OpenFile.Reader r)) {
      return -Errno.EBADF;
    }
    return call("read", path, () -> {
      try {
        return io.read(r, buf, (int) size, offset);
      } catch (StrataException e) {
        if (e.code() == StatusCode.FAILED_PRECONDITION) {
          // Changed in the UFS: the next open must look it up afresh.
          meta.invalidate(r.path);
        }
        throw e;
      }
    });
  }

  @Override
  public int write(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (f instanceof OpenFile.Reader) {
      return refuse(Errno.ENOTSUP, "write {}: cannot change a file's bytes in place", f.path);
    }
    if (!(f instanceof OpenFile.Writer w)) {
      return -Errno.EBADF;
    }
    return call("write", path, () -> {
      synchronized (w) {
        if (w.committed) {
          return refuse(Errno.EIO, "write {}: the file was completed when one of its descriptors was closed; "
              + "write through a single descriptor", w.path);
        }
        if (offset != w.written) {
          return refuse(Errno.ENOTSUP, "write {}: at offset {} while {} bytes are written; Strata files "
              + "are written front to back", w.path, offset, w.written);
        }
        io.write(w, buf, (int) size);
        w.written += size;
        return (int) size;
      }
    });
  }

  /**
   * A writer's file is committed at the first flush (a close(2) of one of its descriptors) after
   * bytes were written, so that close(2) reports whether it landed. A flush before any write is
   * a shell redirect closing the descriptor it duplicated: the file is committed later, at the
   * next flush or at release.
   */
  @Override
  public int flush(String path, FuseFileInfo fi) {
    OpenFile f = open.get(fi.fh.get());
    if (!(f instanceof OpenFile.Writer w) || w.written == 0) {
      return 0;
    }
    return call("close", path, () -> commit(w));
  }

  private int commit(OpenFile.Writer w) {
    synchronized (w) {
      if (w.committed) {
        return 0;
      }
      w.committed = true;
      try {
        w.out.close();
      } finally {
        meta.invalidate(w.path);
      }
      return 0;
    }
  }

  @Override
  public int release(String path, FuseFileInfo fi) {
    OpenFile f = open.remove(fi.fh.get());
    return call("release", path, () -> {
      if (f instanceof OpenFile.Reader r) {
        r.in.close();
      } else if (f instanceof OpenFile.Writer w) {
        commit(w);
      }
      return 0;
    });
  }

  /** Bytes written through the mount become durable when the file is closed, not before. */
  @Override
  public int fsync(String path, int isdatasync, FuseFileInfo fi) {
    return 0;
  }

  @Override
  public int truncate(String path, @off_t long size) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("truncate", path, () -> {
      String p = strata(path);
      var writer = open.writerOf(p);
      if (writer.isPresent() && !writer.get().committed) {
        return writer.get().written == size ? 0 : refuse(Errno.ENOTSUP,
            "truncate {}: a file being written can only grow, front to back", p);
      }
      FileInfo f = meta.status(p);
      if (f.directory()) {
        return -Errno.EISDIR;
      }
      if (size == f.length()) {
        return 0;
      }
      if (size != 0) {
        return refuse(Errno.ENOTSUP, "truncate {}: only to 0 bytes (to write the file anew)", p);
      }
      fs.create(p, new WriteOptions(true, null, f.mode() & 07777)).close();
      meta.invalidate(p);
      return 0;
    });
  }

  @Override
  public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
    return truncate(path, size);
  }

  @Override
  public int unlink(String path) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("unlink", path, () -> {
      String p = strata(path);
      if (meta.status(p).directory()) {
        return -Errno.EISDIR;
      }
      fs.delete(p, false);
      meta.invalidate(p);
      return 0;
    });
  }

  @Override
  public int mkdir(String path, @mode_t long mode) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("mkdir", path, () -> {
      fs.mkdir(strata(path), false);
      meta.invalidate(strata(path));
      return 0;
    });
  }

  @Override
  public int rmdir(String path) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("rmdir", path, () -> {
      String p = strata(path);
      if (!meta.status(p).directory()) {
        return -Errno.ENOTDIR;
      }
      fs.delete(p, false);
      meta.invalidateTree(p);
      return 0;
    });
  }

  @Override
  public int rename(String oldpath, String newpath) {
    if (readOnly) {
      return -Errno.EROFS;
    }
    return call("rename", oldpath, () -> {
      String from = strata(oldpath);
      String to = strata(newpath);
      try {
        fs.rename(from, to);
      } catch (StrataException e) {
        if (e.code() != StatusCode.ALREADY_EXISTS) {
          throw e;
        }
        // POSIX rename replaces a file; the UFS does not: replace it in two steps.
        if (meta.status(to).directory() || meta.status(from).directory()) {
          return -Errno.EEXIST;
        }
        fs.delete(to, false);
        fs.rename(from, to);
      }
      meta.invalidateTree(from);
      meta.invalidateTree(to);
      return 0;
    });
  }

  @Override
  public int chmod(String path, @mode_t long mode) {
    return refuse(Errno.ENOTSUP, "chmod {}: changing modes through the mount is not supported yet", path);
  }

  @Override
  public int chown(String path, long uid, long gid) {
    return refuse(Errno.ENOTSUP, "chown {}: changing owners through the mount is not supported yet", path);
  }

  /** Times come from the UFS; setting them (touch) is accepted and has no effect. */
  @Override
  public int utimens(String path, Timespec[] timespec) {
    return 0;
  }

  /** Nominal figures: the cache is not a disk with a size, and the UFS behind it has none to tell. */
  @Override
  public int statfs(String path, Statvfs stbuf) {
    long blocks = (1L << 50) / BLOCK;
    stbuf.f_bsize.set(BLOCK);
    stbuf.f_frsize.set(BLOCK);
    stbuf.f_blocks.set(blocks);
    stbuf.f_bfree.set(blocks);
    stbuf.f_bavail.set(blocks);
    stbuf.f_files.set(1L << 32);
    stbuf.f_ffree.set(1L << 32);
    stbuf.f_favail.set(1L << 32);
    stbuf.f_namemax.set(255);
    return 0;
  }

  /** Closes what is still open (the mount is going away): writers are abandoned, never committed half-written. */
  void closeAll() {
    for (OpenFile f : open.all()) {
      try {
        if (f instanceof OpenFile.Reader r) {
          r.in.close();
        } else if (f instanceof OpenFile.Writer w && !w.committed) {
          w.out.cancel();
        }
      } catch (RuntimeException e) {
        LOG.debug("closing {}: {}", f.path, e.toString());
      }
    }
  }
}
