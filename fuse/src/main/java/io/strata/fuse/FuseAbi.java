package io.strata.fuse;

/**
 * The FUSE protocol's numbers, as include/uapi/linux/fuse.h defines them (protocol 7.40 and the
 * layouts every kernel since 7.23 shares): opcodes, INIT flags, open flags and struct sizes.
 * Integers are the host's byte order, as the kernel writes them.
 */
final class FuseAbi {
  private FuseAbi() {}

  static final int MAJOR = 7;

  /** The minor this loop speaks: passthrough and flags2 are 7.36 and 7.40. */
  static final int MINOR = 40;

  // Opcodes.
  static final int LOOKUP = 1;
  static final int FORGET = 2;
  static final int GETATTR = 3;
  static final int SETATTR = 4;
  static final int READLINK = 5;
  static final int SYMLINK = 6;
  static final int MKNOD = 8;
  static final int MKDIR = 9;
  static final int UNLINK = 10;
  static final int RMDIR = 11;
  static final int RENAME = 12;
  static final int LINK = 13;
  static final int OPEN = 14;
  static final int READ = 15;
  static final int WRITE = 16;
  static final int STATFS = 17;
  static final int RELEASE = 18;
  static final int FSYNC = 20;
  static final int SETXATTR = 21;
  static final int GETXATTR = 22;
  static final int LISTXATTR = 23;
  static final int REMOVEXATTR = 24;
  static final int FLUSH = 25;
  static final int INIT = 26;
  static final int OPENDIR = 27;
  static final int READDIR = 28;
  static final int RELEASEDIR = 29;
  static final int FSYNCDIR = 30;
  static final int ACCESS = 34;
  static final int CREATE = 35;
  static final int INTERRUPT = 36;
  static final int DESTROY = 38;
  static final int IOCTL = 39;
  static final int BATCH_FORGET = 42;
  static final int FALLOCATE = 43;
  static final int RENAME2 = 45;

  private static final String[] NAMES = new String[53];

  static {
    String[] names = {
      "",
      "lookup",
      "forget",
      "getattr",
      "setattr",
      "readlink",
      "symlink",
      "",
      "mknod",
      "mkdir",
      "unlink",
      "rmdir",
      "rename",
      "link",
      "open",
      "read",
      "write",
      "statfs",
      "release",
      "",
      "fsync",
      "setxattr",
      "getxattr",
      "listxattr",
      "removexattr",
      "flush",
      "init",
      "opendir",
      "readdir",
      "releasedir",
      "fsyncdir",
      "getlk",
      "setlk",
      "setlkw",
      "access",
      "create",
      "interrupt",
      "bmap",
      "destroy",
      "ioctl",
      "poll",
      "notify_reply",
      "batch_forget",
      "fallocate",
      "readdirplus",
      "rename2",
      "lseek",
      "copy_file_range",
      "setupmapping",
      "removemapping",
      "syncfs",
      "tmpfile",
      "statx"
    };
    System.arraycopy(names, 0, NAMES, 0, names.length);
  }

  /** The opcode's name in lower case, as metrics tag it; "other" for one this table lacks. */
  static String name(int opcode) {
    return opcode > 0 && opcode < NAMES.length && !NAMES[opcode].isEmpty()
        ? NAMES[opcode]
        : "other";
  }

  /** Opcodes the kernel sends no reply for. */
  static boolean unanswered(int opcode) {
    return opcode == FORGET || opcode == BATCH_FORGET || opcode == INTERRUPT;
  }

  // INIT flags (fuse_init_in.flags; flags2 holds bits 32 and up).
  static final int ASYNC_READ = 1;
  static final int ATOMIC_O_TRUNC = 1 << 3;
  static final int BIG_WRITES = 1 << 5;
  static final int PARALLEL_DIROPS = 1 << 18;
  static final int MAX_PAGES = 1 << 22;
  static final int INIT_EXT = 1 << 30;

  /** FUSE_PASSTHROUGH, bit 37: bit 5 of fuse_init_in/out.flags2. */
  static final int PASSTHROUGH_FLAGS2 = 1 << 5;

  // Open reply flags (fuse_open_out.open_flags).
  static final int FOPEN_DIRECT_IO = 1;
  static final int FOPEN_KEEP_CACHE = 1 << 1;
  static final int FOPEN_NOFLUSH = 1 << 5;
  static final int FOPEN_PASSTHROUGH = 1 << 7;

  // SETATTR's valid bits.
  static final int FATTR_MODE = 1;
  static final int FATTR_UID = 1 << 1;
  static final int FATTR_GID = 1 << 2;
  static final int FATTR_SIZE = 1 << 3;
  static final int FATTR_ATIME = 1 << 4;
  static final int FATTR_MTIME = 1 << 5;
  static final int FATTR_FH = 1 << 6;
  static final int FATTR_ATIME_NOW = 1 << 7;
  static final int FATTR_MTIME_NOW = 1 << 8;

  /** fuse_in_header and fuse_out_header. */
  static final int IN_HEADER = 40;

  static final int OUT_HEADER = 16;

  /** fuse_attr, fuse_entry_out, fuse_attr_out, fuse_open_out, fuse_init_out, fuse_kstatfs. */
  static final int ATTR = 88;

  static final int ENTRY_OUT = 40 + ATTR;
  static final int ATTR_OUT = 16 + ATTR;
  static final int OPEN_OUT = 16;
  static final int INIT_OUT = 64;
  static final int STATFS_OUT = 80;

  /** A dirent's fixed part: ino, off, namelen, type. */
  static final int DIRENT = 24;

  /** The data of one WRITE: what INIT offers as max_write, and 256 pages per request. */
  static final int MAX_WRITE = 1 << 20;

  static final int MAX_PAGES_PER_REQUEST = 256;

  /** A request buffer: the largest WRITE and its headers (the kernel wants max_write + 4 KiB). */
  static final int REQUEST_BUFFER = MAX_WRITE + 4096;

  /** FUSE_DEV_IOC_CLONE: _IOR(229, 0, uint32_t). */
  static final long DEV_IOC_CLONE = 0x8004E500L;

  /** FUSE_DEV_IOC_BACKING_OPEN: _IOW(229, 1, struct fuse_backing_map) (fd, flags, padding). */
  static final long DEV_IOC_BACKING_OPEN = 0x4010E501L;

  /** FUSE_DEV_IOC_BACKING_CLOSE: _IOW(229, 2, uint32_t) (the backing id). */
  static final long DEV_IOC_BACKING_CLOSE = 0x4004E502L;

  /** struct fuse_backing_map. */
  static final int BACKING_MAP = 16;
}
