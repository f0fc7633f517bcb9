package io.strata.fuse;

import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/** What the kernel is told of a file (stat) and of the mount (statfs). */
final class Attributes {
  static final int BLOCK = 4096;

  private Attributes() {}

  /** A file or folder: a folder without mode bits shows 0755, a file 0644. */
  static void fill(
      FileStat stat, boolean dir, long length, long mtimeMs, int mode, long uid, long gid) {
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
