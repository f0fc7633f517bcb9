package io.strata.fuse;

import io.strata.client.FileInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import jnr.ffi.Pointer;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * The requests on open files and folders: OPEN and CREATE, READ built in place in the reply, WRITE
 * from the request in place, FLUSH, FSYNC, RELEASE and FALLOCATE; OPENDIR, READDIR from a listing
 * read once per open folder, RELEASEDIR. A result of 0 or more is the reply's payload length, a
 * negative one an errno.
 */
final class KernelFiles {
  /** An unknown inode number in a listing, as libfuse gives "." and "..". */
  private static final long UNKNOWN_INO = 0xffffffffL;

  private static final int DT_DIR = 4;

  private final StrataFuse fs;
  private final Nodes nodes;
  private final KernelReplies replies;
  private final KernelEntries entries;
  private final Passthrough passthrough;
  private final BackingFiles backingFiles;
  private final Map<Long, List<Listed>> listings = new ConcurrentHashMap<>();
  private final AtomicLong nextListing = new AtomicLong(1);

  /** One name of a folder's listing (its bytes, as the kernel takes them). */
  private static final class Listed {
    final byte[] name;
    final long ino;
    final int type;

    Listed(byte[] name, long ino, int type) {
      this.name = name;
      this.ino = ino;
      this.type = type;
    }
  }

  KernelFiles(
      StrataFuse fs,
      Nodes nodes,
      KernelReplies replies,
      KernelEntries entries,
      Passthrough passthrough,
      BackingFiles backingFiles) {
    this.fs = fs;
    this.backingFiles = backingFiles;
    this.nodes = nodes;
    this.replies = replies;
    this.entries = entries;
    this.passthrough = passthrough;
  }

  int open(KernelRequest r) {
    String path = nodes.path(r.node);
    if (path == null) {
      return -Errno.ENOENT;
    }
    FuseFileInfo fi = r.slot.file(r.int32(0), 0);
    int result = fs.open(path, fi);
    if (result < 0) {
      return result;
    }
    if (!passthrough.accepted()) {
      return opened(r.out(), fi);
    }
    long fh = fi.fh.get();
    FileInfo version = fs.readerVersion(fh);
    // Every open is counted, a writer's too: the kernel refuses passthrough beside cached opens.
    int backing =
        passthrough.open(
            r.slot,
            r.node,
            fh,
            () -> version == null ? null : backingFiles.open(version, r.slot.scratch));
    if (backing == 0) {
      return opened(r.out(), fi);
    }
    // The kernel reads the backing file itself: no page cache of ours (KEEP_CACHE is refused).
    r.out().putLong(0, fh);
    r.out().putInt(8, FuseAbi.FOPEN_PASSTHROUGH | FuseAbi.FOPEN_NOFLUSH);
    r.out().putInt(12, backing);
    return FuseAbi.OPEN_OUT;
  }

  /** CREATE: the new file's entry, then its open. */
  int create(KernelRequest r) {
    String name = r.name(16);
    String path = nodes.child(r.node, name);
    if (path == null) {
      return -Errno.ENOENT;
    }
    FuseFileInfo fi = r.slot.file(r.int32(0), 0);
    int result = fs.create(path, Integer.toUnsignedLong(r.int32(4)), fi);
    if (result < 0) {
      return result;
    }
    long fh = fi.fh.get();
    int openFlags = openFlags(fi);
    FileStat st = r.slot.clearStat();
    int looked = fs.getattr(path, st);
    if (looked < 0) {
      fs.release(path, r.slot.file(0, fh));
      return looked;
    }
    int n = replies.entry(r.out(), entries.looked(r.node, name, st), st);
    Pointer open = r.out().slice(n);
    open.putLong(0, fh);
    open.putInt(8, openFlags);
    open.putInt(12, 0);
    return n + FuseAbi.OPEN_OUT;
  }

  private int opened(Pointer out, FuseFileInfo fi) {
    out.putLong(0, fi.fh.get());
    out.putInt(8, openFlags(fi));
    out.putInt(12, 0);
    return FuseAbi.OPEN_OUT;
  }

  /**
   * What the operations layer asked of the kernel in libfuse 2's bit fields (direct_io bit 0,
   * keep_cache bit 1 of the word at 20, see {@link KernelView}), and no FLUSH for a reader.
   */
  private int openFlags(FuseFileInfo fi) {
    int bits = jnr.ffi.Struct.getMemory(fi).getInt(20);
    int flags = 0;
    if ((bits & 1) != 0) {
      flags |= FuseAbi.FOPEN_DIRECT_IO;
    }
    if ((bits & 2) != 0) {
      flags |= FuseAbi.FOPEN_KEEP_CACHE;
    }
    if (fs.reads(fi.fh.get())) {
      flags |= FuseAbi.FOPEN_NOFLUSH;
    }
    return flags;
  }

  /** READ: the bytes go straight into the reply after its header. */
  int read(KernelRequest r) {
    long size = Math.min(Integer.toUnsignedLong(r.int32(16)), FuseAbi.MAX_WRITE);
    String path = pathOrEmpty(r.node);
    return fs.read(path, r.out(), size, r.int64(8), r.slot.file(r.int32(32), r.int64(0)));
  }

  /** WRITE: the bytes are read where the kernel put them in the request. */
  int write(KernelRequest r) {
    long size = Integer.toUnsignedLong(r.int32(16));
    if (40 + size > r.length) {
      return -Errno.EINVAL;
    }
    String path = pathOrEmpty(r.node);
    int result = fs.write(path, r.body(40), size, r.int64(8), r.slot.file(r.int32(32), r.int64(0)));
    if (result < 0) {
      return result;
    }
    r.out().putInt(0, result);
    r.out().putInt(4, 0);
    return 8;
  }

  int flush(KernelRequest r) {
    return fs.flush(pathOrEmpty(r.node), r.slot.file(0, r.int64(0)));
  }

  int release(KernelRequest r) {
    if (passthrough.accepted()) {
      passthrough.release(r.slot.fd, r.int64(0));
    }
    return fs.release(pathOrEmpty(r.node), r.slot.file(r.int32(8), r.int64(0)));
  }

  int fsync(KernelRequest r) {
    return fs.fsync(pathOrEmpty(r.node), r.int32(8) & 1, r.slot.file(0, r.int64(0)));
  }

  int fallocate(KernelRequest r) {
    String path = pathOrEmpty(r.node);
    return fs.fallocate(path, r.int32(24), r.int64(8), r.int64(16), r.slot.file(0, r.int64(0)));
  }

  /** OPENDIR: a handle; the listing is read at the first READDIR. */
  int opendir(KernelRequest r) {
    if (nodes.path(r.node) == null) {
      return -Errno.ENOENT;
    }
    long handle = nextListing.getAndIncrement();
    r.out().putLong(0, handle);
    r.out().putInt(8, 0);
    r.out().putInt(12, 0);
    return FuseAbi.OPEN_OUT;
  }

  /** READDIR: the entries from the offset on that fit, each offset the next entry's index. */
  int readdir(KernelRequest r) {
    long handle = r.int64(0);
    long offset = r.int64(8);
    int size = (int) Math.min(Integer.toUnsignedLong(r.int32(16)), FuseAbi.MAX_WRITE);
    List<Listed> listing = listings.get(handle);
    if (listing == null || offset == 0) {
      String path = nodes.path(r.node);
      if (path == null) {
        return -Errno.ENOENT;
      }
      List<Listed> read = new ArrayList<>();
      int result = fs.readdir(path, null, (buf, name, st, off) -> add(read, name, st), 0, null);
      if (result < 0) {
        return result;
      }
      listing = read;
      listings.put(handle, listing);
    }
    Pointer out = r.out();
    int used = 0;
    for (long i = offset; i < listing.size(); i++) {
      Listed e = listing.get((int) i);
      int entry = (FuseAbi.DIRENT + e.name.length + 7) & ~7;
      if (used + entry > size) {
        break;
      }
      out.putLong(used, e.ino);
      out.putLong(used + 8, i + 1);
      out.putInt(used + 16, e.name.length);
      out.putInt(used + 20, e.type);
      out.put(used + FuseAbi.DIRENT, e.name, 0, e.name.length);
      out.setMemory(
          used + FuseAbi.DIRENT + e.name.length, entry - FuseAbi.DIRENT - e.name.length, (byte) 0);
      used += entry;
    }
    return used;
  }

  private static int add(List<Listed> listing, java.nio.ByteBuffer name, Pointer stat) {
    int n = 0;
    while (n < name.remaining() && name.get(name.position() + n) != 0) {
      n++;
    }
    byte[] bytes = new byte[n];
    name.duplicate().get(bytes);
    if (stat == null) {
      listing.add(new Listed(bytes, UNKNOWN_INO, DT_DIR));
    } else {
      FileStat st = FileStat.of(stat);
      listing.add(new Listed(bytes, st.st_ino.longValue(), (st.st_mode.intValue() >> 12) & 017));
    }
    return 0;
  }

  int releasedir(KernelRequest r) {
    listings.remove(r.int64(0));
    return 0;
  }

  /** The node's path for an operation on an open file: "" for one no name leads to any more. */
  private String pathOrEmpty(long node) {
    String path = nodes.path(node);
    return path == null ? "" : path;
  }
}
