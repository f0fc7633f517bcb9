package io.strata.fuse;

import io.strata.core.proto.FileType;
import io.strata.core.ufs.PosixModes;
import jnr.ffi.Pointer;
import ru.serce.jnrfuse.struct.FileStat;

/**
 * The requests that name entries by node and name: LOOKUP and FORGET, attributes, making, linking,
 * removing and renaming, links' targets, extended attributes and STATFS; each served by the
 * operations layer ({@link StrataFuse}) on the node's path. A result of 0 or more is the reply's
 * payload length, a negative one an errno.
 */
final class KernelEntries {
  private static final int PATH_MAX = 4096;

  private final StrataFuse fs;
  private final Nodes nodes;
  private final KernelReplies replies;

  KernelEntries(StrataFuse fs, Nodes nodes, KernelReplies replies) {
    this.fs = fs;
    this.nodes = nodes;
    this.replies = replies;
  }

  int lookup(KernelRequest r) {
    String name = r.name(0);
    String path = nodes.child(r.node, name);
    if (path == null) {
      return -Errno.ESTALE;
    }
    FileStat st = r.slot.clearStat();
    int result = fs.getattr(path, st);
    if (result == -Errno.ENOENT) {
      nodes.removed(r.node, name);
      return replies.entry(r.out(), 0, st);
    }
    return result < 0 ? result : replies.entry(r.out(), looked(r.node, name, st), st);
  }

  void forget(KernelRequest r) {
    nodes.forget(r.node, r.int64(0));
  }

  void batchForget(KernelRequest r) {
    int count = r.int32(0);
    for (int i = 0; i < count && 8 + 16 * (i + 1) <= r.length; i++) {
      nodes.forget(r.int64(8 + 16 * i), r.int64(16 + 16 * i));
    }
  }

  int getattr(KernelRequest r) {
    String path = nodes.path(r.node);
    if (path == null) {
      return -Errno.ENOENT;
    }
    FileStat st = r.slot.clearStat();
    int result = fs.getattr(path, st);
    return result < 0 ? result : replies.attrOut(r.out(), st);
  }

  /** In libfuse's order: mode, owner, size, times; then the attributes as they are now. */
  int setattr(KernelRequest r) {
    String path = nodes.path(r.node);
    if (path == null) {
      return -Errno.ENOENT;
    }
    int valid = r.int32(0);
    int result = 0;
    if ((valid & FuseAbi.FATTR_MODE) != 0) {
      result = fs.chmod(path, r.int32(68));
    }
    if (result == 0 && (valid & (FuseAbi.FATTR_UID | FuseAbi.FATTR_GID)) != 0) {
      long uid = (valid & FuseAbi.FATTR_UID) != 0 ? Integer.toUnsignedLong(r.int32(76)) : -1;
      long gid = (valid & FuseAbi.FATTR_GID) != 0 ? Integer.toUnsignedLong(r.int32(80)) : -1;
      result = fs.chown(path, uid, gid);
    }
    if (result == 0 && (valid & FuseAbi.FATTR_SIZE) != 0) {
      long size = r.int64(16);
      result =
          (valid & FuseAbi.FATTR_FH) != 0
              ? fs.ftruncate(path, size, r.slot.file(0, r.int64(8)))
              : fs.truncate(path, size);
    }
    if (result == 0 && (valid & (FuseAbi.FATTR_ATIME | FuseAbi.FATTR_MTIME)) != 0) {
      time(r, 0, valid, FuseAbi.FATTR_ATIME, FuseAbi.FATTR_ATIME_NOW, 32, 56);
      time(r, 1, valid, FuseAbi.FATTR_MTIME, FuseAbi.FATTR_MTIME_NOW, 40, 60);
      result = fs.utimens(path, r.slot.times);
    }
    return result < 0 ? result : getattr(r);
  }

  private static void time(
      KernelRequest r, int which, int valid, int set, int now, int seconds, int nanos) {
    var t = r.slot.times[which];
    if ((valid & set) == 0) {
      t.tv_sec.set(0);
      t.tv_nsec.set(PosixOps.UTIME_OMIT);
    } else if ((valid & now) != 0) {
      t.tv_sec.set(0);
      t.tv_nsec.set(PosixOps.UTIME_NOW);
    } else {
      t.tv_sec.set(r.int64(seconds));
      t.tv_nsec.set(Integer.toUnsignedLong(r.int32(nanos)));
    }
  }

  int readlink(KernelRequest r) {
    String path = nodes.path(r.node);
    if (path == null) {
      return -Errno.ENOENT;
    }
    Pointer target = r.slot.scratch;
    int result = fs.readlink(path, target, PATH_MAX + 1);
    if (result < 0) {
      return result;
    }
    int n = 0;
    while (n < PATH_MAX && target.getByte(n) != 0) {
      n++;
    }
    r.out().transferFrom(0, target, 0, n);
    return n;
  }

  int mknod(KernelRequest r) {
    String name = r.name(16);
    return made(
        r, name, fs.mknod(childOf(r, name), r.int32(0), Integer.toUnsignedLong(r.int32(4))));
  }

  int mkdir(KernelRequest r) {
    String name = r.name(8);
    return made(r, name, fs.mkdir(childOf(r, name), r.int32(0)));
  }

  int symlink(KernelRequest r) {
    String name = r.name(0);
    String target = r.name(r.after(0));
    return made(r, name, fs.symlink(target, childOf(r, name)));
  }

  /** LINK: the new name's entry is the linked node's own, as it is the same inode. */
  int link(KernelRequest r) {
    long node = r.int64(0);
    String existing = nodes.path(node);
    String name = r.name(8);
    if (existing == null) {
      return -Errno.ENOENT;
    }
    String path = childOf(r, name);
    int result = fs.link(existing, path);
    if (result < 0) {
      return result;
    }
    FileStat st = r.slot.clearStat();
    int looked = fs.getattr(path, st);
    return looked < 0
        ? looked
        : replies.entry(r.out(), nodes.linked(node, r.node, name, st.st_ino.longValue()), st);
  }

  /** After {@code name} was made in the request's folder: its entry, as a LOOKUP answers. */
  private int made(KernelRequest r, String name, int result) {
    if (result < 0) {
      return result;
    }
    FileStat st = r.slot.clearStat();
    int looked = fs.getattr(childOf(r, name), st);
    return looked < 0 ? looked : replies.entry(r.out(), looked(r.node, name, st), st);
  }

  /** The node of {@code name} in {@code parent}, whose attributes are {@code st}. */
  long looked(long parent, String name, FileStat st) {
    boolean folder = PosixModes.type(st.st_mode.intValue()) == FileType.DIRECTORY;
    return nodes.looked(parent, name, st.st_ino.longValue(), st.st_nlink.longValue(), folder);
  }

  int unlink(KernelRequest r) {
    return removing(r, fs::unlink);
  }

  int rmdir(KernelRequest r) {
    return removing(r, fs::rmdir);
  }

  /** UNLINK or RMDIR of the named entry by {@code remove}; the name leaves its node when done. */
  private int removing(KernelRequest r, java.util.function.ToIntFunction<String> remove) {
    String name = r.name(0);
    int result = remove.applyAsInt(childOf(r, name));
    if (result == 0) {
      nodes.removed(r.node, name);
    }
    return result;
  }

  /** RENAME, or RENAME2 ({@code flagged}): its flags (no-replace, exchange) are not served. */
  int rename(KernelRequest r, boolean flagged) {
    long newParent = r.int64(0);
    int names = flagged ? 16 : 8;
    if (flagged && r.int32(8) != 0) {
      return -Errno.EINVAL;
    }
    String name = r.name(names);
    String newName = r.name(r.after(names));
    String to = nodes.child(newParent, newName);
    if (to == null) {
      return -Errno.ENOENT;
    }
    int result = fs.rename(childOf(r, name), to);
    if (result == 0) {
      nodes.renamed(r.node, name, newParent, newName);
    }
    return result;
  }

  int statfs(KernelRequest r) {
    int result = fs.statfs("/", r.slot.clearStatvfs());
    return result < 0 ? result : KernelReplies.statfs(r.out(), r.slot.statvfs);
  }

  int setxattr(KernelRequest r) {
    String path = nodes.path(r.node);
    if (path == null) {
      return -Errno.ENOENT;
    }
    String name = r.name(8);
    return fs.setxattr(
        path, name, r.body(r.after(8)), Integer.toUnsignedLong(r.int32(0)), r.int32(4));
  }

  /** GETXATTR and LISTXATTR: with size 0 the length the value needs, else the value. */
  int getxattr(KernelRequest r, boolean list) {
    String path = nodes.path(r.node);
    if (path == null) {
      return -Errno.ENOENT;
    }
    long size = Integer.toUnsignedLong(r.int32(0));
    Pointer into = size == 0 ? r.slot.scratch : r.out();
    int result = list ? fs.listxattr(path, into, size) : fs.getxattr(path, r.name(8), into, size);
    if (result < 0) {
      return result;
    }
    if (size == 0) {
      r.out().putInt(0, result);
      r.out().putInt(4, 0);
      return 8;
    }
    return result;
  }

  int removexattr(KernelRequest r) {
    String path = nodes.path(r.node);
    return path == null ? -Errno.ENOENT : fs.removexattr(path, r.name(0));
  }

  /** The path of a name in the request's folder (a folder the kernel holds, so never null). */
  private String childOf(KernelRequest r, String name) {
    String path = nodes.child(r.node, name);
    return path == null ? "/.strata-stale-node/" + name : path;
  }
}
