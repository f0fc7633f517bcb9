package io.strata.fuse;

import io.strata.client.FileInfo;
import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/** What the kernel is told of a file (stat) and of the mount (statfs). */
final class Attributes {
  static final int BLOCK = 4096;

  private Attributes() {}

  /**
   * An entry as the under-storage describes it: with its POSIX attributes where it keeps them
   * (type, numeric owner, links, inode, times in ns), else a file or folder owned by the local
   * account of its owner's name.
   */
  static void fill(FileStat stat, FileInfo f, Identities ids) {
    PosixAttributes p = f.posix();
    if (p == null) {
      fill(stat, f.directory(), f.length(), f.mtimeMs(), f.mode(), uid(f, ids), gid(f, ids));
      return;
    }
    stat.st_mode.set(typeBits(f.type()) | (p.getMode() & 07777));
    stat.st_nlink.set(p.getNlink());
    stat.st_ino.set(p.getInode());
    stat.st_rdev.set(p.getRdev());
    stat.st_size.set(f.directory() ? BLOCK : f.length());
    stat.st_blksize.set(BLOCK);
    stat.st_blocks.set((f.length() + 511) / 512);
    stat.st_uid.set(uid(f, ids));
    stat.st_gid.set(gid(f, ids));
    time(stat.st_atim, p.getAtimeNs());
    time(stat.st_mtim, p.getMtimeNs());
    time(stat.st_ctim, p.getCtimeNs());
  }

  /**
   * What a listing tells of each entry: its type, which the kernel passes on as the entry's d_type
   * (so that a reader that only needs to tell files from folders, as scandir's is_file does, stats
   * nothing), and its inode where the under-storage keeps one (libfuse's "unknown" otherwise, as
   * with no attributes at all).
   */
  static void fillEntry(FileStat stat, FileInfo f) {
    PosixAttributes p = f.posix();
    stat.st_mode.set(typeBits(f.type()));
    stat.st_ino.set(p != null ? p.getInode() : UNKNOWN_INODE);
  }

  /** libfuse's FUSE_UNKNOWN_INO. */
  private static final long UNKNOWN_INODE = 0xffffffffL;

  private static int typeBits(FileType type) {
    return switch (type) {
      case DIRECTORY -> FileStat.S_IFDIR;
      case SYMLINK -> FileStat.S_IFLNK;
      case FIFO -> FileStat.S_IFIFO;
      case SOCKET -> FileStat.S_IFSOCK;
      case CHAR_DEVICE -> FileStat.S_IFCHR;
      case BLOCK_DEVICE -> FileStat.S_IFBLK;
      default -> FileStat.S_IFREG;
    };
  }

  private static void time(Timespec t, long ns) {
    t.tv_sec.set(Math.floorDiv(ns, 1_000_000_000L));
    t.tv_nsec.set(Math.floorMod(ns, 1_000_000_000L));
  }

  /** The owner the kernel is told {@code f} has. */
  static long uid(FileInfo f, Identities ids) {
    PosixAttributes p = f.posix();
    // uint32 in the proto: an id past 2^31 (an NFS nobody, a directory's range) is not negative.
    return p == null ? ids.uid(f.owner()) : ids.uid(Integer.toUnsignedLong(p.getUid()));
  }

  /** The group the kernel is told {@code f} has. */
  static long gid(FileInfo f, Identities ids) {
    PosixAttributes p = f.posix();
    return p == null ? ids.gid(f.group()) : ids.gid(Integer.toUnsignedLong(p.getGid()));
  }

  /** The permission bits (07777) the kernel is told {@code f} has. */
  static int permissions(FileInfo f) {
    PosixAttributes p = f.posix();
    return p == null ? shown(f.mode(), f.directory()) : p.getMode() & 07777;
  }

  /** A folder without mode bits shows 0755, a file 0644. */
  private static int shown(int mode, boolean dir) {
    int perm = mode & 07777;
    return perm != 0 ? perm : dir ? 0755 : 0644;
  }

  /** A file or folder: a folder without mode bits shows 0755, a file 0644. */
  static void fill(
      FileStat stat, boolean dir, long length, long mtimeMs, int mode, long uid, long gid) {
    int perm = shown(mode, dir);
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

  /** The size of a file changed through the mount and not published yet. */
  static void resize(FileStat stat, long size) {
    stat.st_size.set(size);
    stat.st_blocks.set((size + 511) / 512);
  }

  /**
   * Nominal figures: the cache is not a disk with a size, the UFS behind it has none to tell, and
   * summing the namespace would make every df (and every free-space probe) a scan of it.
   */
  static void fillStatfs(Statvfs stbuf) {
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
  }
}
