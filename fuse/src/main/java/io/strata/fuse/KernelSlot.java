package io.strata.fuse;

import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseContext;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * What one serving thread of {@link KernelLoop} reads requests into and builds replies in, and the
 * structs the operations layer ({@link StrataFuse}) fills, allocated once: a request is read,
 * handled and answered with no allocation of native memory.
 */
final class KernelSlot {
  private static final Runtime RUNTIME = Runtime.getSystemRuntime();
  private static final int STAT = Struct.size(new FileStat(RUNTIME));
  private static final int FILE_INFO = 64;
  private static final int STATVFS = Struct.size(new Statvfs(RUNTIME));

  final int fd;
  final Pointer request = Memory.allocateDirect(RUNTIME, FuseAbi.REQUEST_BUFFER);
  final Pointer reply =
      Memory.allocateDirect(RUNTIME, FuseAbi.OUT_HEADER + FuseAbi.MAX_WRITE + 4096);

  /** Scratch for a link's target or an xattr's value before it is copied into a reply. */
  final Pointer scratch = Memory.allocateDirect(RUNTIME, 64 * 1024);

  final FileStat stat = FileStat.of(Memory.allocateDirect(RUNTIME, STAT));
  final FuseFileInfo file = FuseFileInfo.of(Memory.allocateDirect(RUNTIME, FILE_INFO));
  final Statvfs statvfs = Statvfs.of(Memory.allocateDirect(RUNTIME, STATVFS));
  final FuseContext caller = new FuseContext(RUNTIME);
  final Timespec[] times = {
    Timespec.of(Memory.allocateDirect(RUNTIME, 16)), Timespec.of(Memory.allocateDirect(RUNTIME, 16))
  };

  KernelSlot(int fd) {
    this.fd = fd;
    caller.useMemory(Memory.allocateDirect(RUNTIME, Struct.size(caller)));
  }

  /** The stat struct, emptied for the next fill. */
  FileStat clearStat() {
    Struct.getMemory(stat).setMemory(0, STAT, (byte) 0);
    return stat;
  }

  /** The file info struct, emptied, with {@code flags} and {@code fh} set. */
  FuseFileInfo file(int flags, long fh) {
    Struct.getMemory(file).setMemory(0, FILE_INFO, (byte) 0);
    file.flags.set(flags);
    file.fh.set(fh);
    return file;
  }

  Statvfs clearStatvfs() {
    Struct.getMemory(statvfs).setMemory(0, STATVFS, (byte) 0);
    return statvfs;
  }
}
