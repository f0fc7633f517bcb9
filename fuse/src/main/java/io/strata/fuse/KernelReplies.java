package io.strata.fuse;

import java.time.Duration;
import jnr.ffi.Pointer;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.Statvfs;

/**
 * The reply structs the protocol defines, filled from what the operations layer answered in
 * libfuse's structs: fuse_attr from a stat, fuse_entry_out and fuse_attr_out with the mount's
 * timeouts, fuse_kstatfs from a statvfs.
 */
final class KernelReplies {
  private final long entrySeconds;
  private final int entryNanos;
  private final long attrSeconds;
  private final int attrNanos;

  KernelReplies(Duration entryTimeout, Duration attrTimeout) {
    this.entrySeconds = entryTimeout.toSeconds();
    this.entryNanos = entryTimeout.toNanosPart();
    this.attrSeconds = attrTimeout.toSeconds();
    this.attrNanos = attrTimeout.toNanosPart();
  }

  /** fuse_entry_out of {@code node} (0: "no such name", kept as long as an entry). */
  int entry(Pointer out, long node, FileStat st) {
    out.putLong(0, node);
    out.putLong(8, 0);
    out.putLong(16, entrySeconds);
    out.putLong(24, node == 0 ? 0 : attrSeconds);
    out.putInt(32, entryNanos);
    out.putInt(36, node == 0 ? 0 : attrNanos);
    if (node == 0) {
      out.setMemory(40, FuseAbi.ATTR, (byte) 0);
    } else {
      attr(out, 40, st);
    }
    return FuseAbi.ENTRY_OUT;
  }

  /** fuse_attr_out. */
  int attrOut(Pointer out, FileStat st) {
    out.putLong(0, attrSeconds);
    out.putInt(8, attrNanos);
    out.putInt(12, 0);
    attr(out, 16, st);
    return FuseAbi.ATTR_OUT;
  }

  /** fuse_attr at {@code at}: the under-storage's inode number, as {@code use_ino} gave it. */
  static void attr(Pointer out, long at, FileStat st) {
    out.putLong(at, st.st_ino.longValue());
    out.putLong(at + 8, st.st_size.longValue());
    out.putLong(at + 16, st.st_blocks.longValue());
    out.putLong(at + 24, st.st_atim.tv_sec.get());
    out.putLong(at + 32, st.st_mtim.tv_sec.get());
    out.putLong(at + 40, st.st_ctim.tv_sec.get());
    out.putInt(at + 48, st.st_atim.tv_nsec.intValue());
    out.putInt(at + 52, st.st_mtim.tv_nsec.intValue());
    out.putInt(at + 56, st.st_ctim.tv_nsec.intValue());
    out.putInt(at + 60, st.st_mode.intValue());
    out.putInt(at + 64, st.st_nlink.intValue());
    out.putInt(at + 68, (int) st.st_uid.get());
    out.putInt(at + 72, (int) st.st_gid.get());
    out.putInt(at + 76, (int) st.st_rdev.get());
    out.putInt(at + 80, (int) st.st_blksize.get());
    out.putInt(at + 84, 0);
  }

  /** fuse_statfs_out. */
  static int statfs(Pointer out, Statvfs st) {
    out.putLong(0, st.f_blocks.longValue());
    out.putLong(8, st.f_bfree.longValue());
    out.putLong(16, st.f_bavail.longValue());
    out.putLong(24, st.f_files.longValue());
    out.putLong(32, st.f_ffree.longValue());
    out.putInt(40, st.f_bsize.intValue());
    out.putInt(44, st.f_namemax.intValue());
    out.putInt(48, st.f_frsize.intValue());
    out.setMemory(52, FuseAbi.STATFS_OUT - 52, (byte) 0);
    return FuseAbi.STATFS_OUT;
  }
}
