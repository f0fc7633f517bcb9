package io.strata.fuse;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import jnr.ffi.Pointer;
import jnr.ffi.byref.IntByReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read passthrough on Strata's own loop: an open of a file its worker keeps whole on this host
 * registers that file with the kernel as the inode's backing file and is answered {@code
 * FOPEN_PASSTHROUGH}; the kernel then reads the file itself, and no READ reaches this process.
 *
 * <p>The kernel's rules shape the table kept per inode: one backing file per inode while any open
 * of it passes through, every open of such an inode must pass through with the same backing id, and
 * no open may pass through while the inode has opens through the page cache. So an inode is in one
 * mode from its first open to its last release: its backing file registered once (refcounted over
 * its opens, closed at the last RELEASE), or its opens counted as cached. An open of a newer
 * version while an older one is passed through is served the older one's file (a whole file is one
 * immutable version): it changes at the last release, as a file held open on NFS does.
 *
 * <p>Only for read-only mounts (on one that is not, a write open of an inode in passthrough would
 * fail) and a process with CAP_SYS_ADMIN, which registering needs: the first refusal turns it off
 * for the mount, said once in the log. Thread-safe.
 */
final class Passthrough {
  private static final Logger LOG = LoggerFactory.getLogger(Passthrough.class);

  /** One inode's mode: its backing id (0: its opens go through the page cache) and open count. */
  private static final class Inode {
    final int backingId;
    final Path file;
    int opens;

    Inode(int backingId, Path file) {
      this.backingId = backingId;
      this.file = file;
    }
  }

  private final Map<Long, Inode> inodes = new HashMap<>();
  private final Map<Long, Long> inodeOfHandle = new HashMap<>();
  private final AtomicLong passedThrough = new AtomicLong();
  private volatile boolean accepted;
  private volatile boolean enabled;

  /** INIT accepted passthrough: opens may now pass through, and every open is counted. */
  void accept() {
    accepted = true;
    enabled = true;
  }

  /** Whether INIT accepted passthrough (opens are counted even once registering is refused). */
  boolean accepted() {
    return accepted;
  }

  boolean enabled() {
    return enabled;
  }

  /** Opens answered FOPEN_PASSTHROUGH since the mount began. */
  long passedThrough() {
    return passedThrough.get();
  }

  /** Backing files registered now. */
  synchronized int backingFiles() {
    return (int) inodes.values().stream().filter(i -> i.backingId > 0).count();
  }

  /**
   * Counts the open {@code fh} of inode {@code node} in; its backing id if it passes through
   * ({@code backing} gives the worker's whole file of the version opened, open, or null if it keeps
   * none; asked only for an inode with no open yet, and without the table's lock: it may wait for
   * the worker to read the file whole, while other inodes' opens go on), 0 if it goes through the
   * page cache. {@code slot} is the calling thread's.
   */
  int open(KernelSlot slot, long node, long fh, Supplier<BackingFiles.Backing> backing) {
    synchronized (this) {
      Inode inode = inodes.get(node);
      if (inode != null || !enabled) {
        return countIn(node, fh, inode != null ? inode : new Inode(0, null));
      }
    }
    BackingFiles.Backing whole = backing.get();
    int id = whole != null ? register(slot, whole) : 0;
    synchronized (this) {
      Inode inode = inodes.get(node);
      if (inode == null) {
        inode = new Inode(id, whole == null ? null : whole.file());
      } else if (id > 0) {
        // Another open of the inode came first, and its mode holds.
        closeBacking(slot.fd, id, whole.file());
      }
      return countIn(node, fh, inode);
    }
  }

  private int countIn(long node, long fh, Inode inode) {
    inodes.putIfAbsent(node, inode);
    inode.opens++;
    inodeOfHandle.put(fh, node);
    if (inode.backingId > 0) {
      passedThrough.incrementAndGet();
    }
    return inode.backingId;
  }

  /** Counts the open {@code fh} out; the inode's backing file is closed with its last open. */
  synchronized void release(int devFd, long fh) {
    Long node = inodeOfHandle.remove(fh);
    Inode inode = node == null ? null : inodes.get(node);
    if (inode == null || --inode.opens > 0) {
      return;
    }
    inodes.remove(node);
    if (inode.backingId > 0) {
      closeBacking(devFd, inode.backingId, inode.file);
    }
  }

  private static void closeBacking(int devFd, int backingId, Path file) {
    IntByReference id = new IntByReference(backingId);
    if (DevFuse.libc().ioctl(devFd, FuseAbi.DEV_IOC_BACKING_CLOSE, id) != 0) {
      LOG.warn(
          "cannot close the backing file {} of {}: {}",
          backingId,
          file,
          DevFuse.lastError().description());
    }
  }

  /** The kernel's id of the open {@code whole} as a backing file (0 if none); closes it. */
  private int register(KernelSlot slot, BackingFiles.Backing whole) {
    try {
      Pointer map = slot.scratch;
      map.putInt(0, whole.fd());
      map.putInt(4, 0);
      map.putLong(8, 0);
      int id = DevFuse.libc().ioctl(slot.fd, FuseAbi.DEV_IOC_BACKING_OPEN, map);
      if (id <= 0) {
        enabled = false;
        LOG.warn(
            "FUSE passthrough is off for this mount: the kernel refused a backing file ({}); it"
                + " needs CAP_SYS_ADMIN, and reads go through this process",
            DevFuse.lastError().description());
        return 0;
      }
      return id;
    } finally {
      DevFuse.libc().close(whole.fd());
    }
  }
}
