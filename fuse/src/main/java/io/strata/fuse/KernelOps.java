package io.strata.fuse;

/**
 * Which operation serves a request, by opcode. A result of 0 or more is the reply's payload length,
 * a negative one an errno; {@link #NO_REPLY} for requests the kernel wants no answer to. IOCTL is
 * ENOTTY at once (Python's open() asks isatty of every file, and the kernel never caches a
 * refusal); what this file system does not serve is ENOSYS, which the kernel remembers for LSEEK,
 * COPY_FILE_RANGE and the like, then does itself.
 */
final class KernelOps {
  static final int NO_REPLY = Integer.MIN_VALUE;

  private final KernelEntries entries;
  private final KernelFiles files;

  KernelOps(KernelEntries entries, KernelFiles files) {
    this.entries = entries;
    this.files = files;
  }

  int serve(KernelRequest r) {
    return switch (r.opcode) {
      case FuseAbi.LOOKUP -> entries.lookup(r);
      case FuseAbi.FORGET -> {
        entries.forget(r);
        yield NO_REPLY;
      }
      case FuseAbi.BATCH_FORGET -> {
        entries.batchForget(r);
        yield NO_REPLY;
      }
      case FuseAbi.INTERRUPT -> NO_REPLY;
      case FuseAbi.GETATTR -> entries.getattr(r);
      case FuseAbi.SETATTR -> entries.setattr(r);
      case FuseAbi.READLINK -> entries.readlink(r);
      case FuseAbi.SYMLINK -> entries.symlink(r);
      case FuseAbi.MKNOD -> entries.mknod(r);
      case FuseAbi.MKDIR -> entries.mkdir(r);
      case FuseAbi.UNLINK -> entries.unlink(r);
      case FuseAbi.RMDIR -> entries.rmdir(r);
      case FuseAbi.RENAME -> entries.rename(r, false);
      case FuseAbi.RENAME2 -> entries.rename(r, true);
      case FuseAbi.LINK -> entries.link(r);
      case FuseAbi.STATFS -> entries.statfs(r);
      case FuseAbi.SETXATTR -> entries.setxattr(r);
      case FuseAbi.GETXATTR -> entries.getxattr(r, false);
      case FuseAbi.LISTXATTR -> entries.getxattr(r, true);
      case FuseAbi.REMOVEXATTR -> entries.removexattr(r);
      case FuseAbi.OPEN -> files.open(r);
      case FuseAbi.CREATE -> files.create(r);
      case FuseAbi.READ -> files.read(r);
      case FuseAbi.WRITE -> files.write(r);
      case FuseAbi.FLUSH -> files.flush(r);
      case FuseAbi.RELEASE -> files.release(r);
      case FuseAbi.FSYNC -> files.fsync(r);
      case FuseAbi.FALLOCATE -> files.fallocate(r);
      case FuseAbi.OPENDIR -> files.opendir(r);
      case FuseAbi.READDIR -> files.readdir(r);
      case FuseAbi.RELEASEDIR -> files.releasedir(r);
      case FuseAbi.FSYNCDIR, FuseAbi.ACCESS, FuseAbi.DESTROY -> 0;
      case FuseAbi.IOCTL -> -Errno.ENOTTY;
      default -> -Errno.ENOSYS;
    };
  }
}
