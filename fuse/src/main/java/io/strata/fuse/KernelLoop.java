package io.strata.fuse;

import io.strata.client.FileSystem;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import jnr.constants.platform.Errno;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Strata's own FUSE protocol loop: mounts with mount(2) on a descriptor of {@code /dev/fuse},
 * answers INIT (1 MiB writes, 256 pages a request, asynchronous reads, parallel lookups), and
 * serves requests on long-lived Java threads, each reading its own clone of the descriptor, one
 * {@code read} per request and one {@code write} per reply. Requests are served by the same
 * operations layer as the libfuse mount ({@link StrataFuse}) through {@link KernelOps}. Needs
 * CAP_SYS_ADMIN (root): mount(2) of a FUSE file system is the kernel's to allow.
 */
final class KernelLoop {
  private static final Logger LOG = LoggerFactory.getLogger(KernelLoop.class);

  private static final long MS_RDONLY = 1;
  private static final long MS_NOSUID = 2;
  private static final long MS_NODEV = 4;
  private static final long MS_NOEXEC = 8;
  private static final long MS_NOATIME = 1024;

  /** What the mount asks of mount(2) and of its replies; {@code folder} is the Strata folder. */
  record Spec(
      String folder,
      boolean readOnly,
      boolean allowOther,
      List<String> kernelOptions,
      Duration entryTimeout,
      Duration attrTimeout,
      long fetchWholeMax) {}

  private final StrataFuse fs;
  private final KernelOps ops;

  private KernelLoop(StrataFuse fs, KernelOps ops) {
    this.fs = fs;
    this.ops = ops;
  }

  /** Whether this process may mount with the loop: it runs as root. */
  static boolean canMount() {
    try {
      return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /**
   * Mounts {@code fs} on {@code mountPoint} and serves it from now on on {@code threads}; runs
   * {@code ended} once they all stopped (the mount went).
   */
  static void start(StrataFuse fs, Path mountPoint, Spec spec, int threads, Runnable ended) {
    String at = mountPoint.toAbsolutePath().toString();
    int fd = DevFuse.open();
    try {
      DevFuse.mount("strata:" + spec.folder(), at, "fuse.strata", flags(spec), data(fd, spec));
    } catch (StrataException e) {
      DevFuse.libc().close(fd);
      throw e;
    }
    fs.mountedAt(mountPoint);
    KernelSlot first = new KernelSlot(fd);
    Passthrough passthrough = new Passthrough();
    fs.metrics().passthrough(passthrough);
    init(first, spec.readOnly() ? passthrough : null);
    KernelReplies replies = new KernelReplies(spec.entryTimeout(), spec.attrTimeout());
    Nodes nodes = new Nodes();
    KernelNotices notices = new KernelNotices(fd, nodes, spec.folder());
    fs.client()
        .onChangesElsewhere(
            new FileSystem.ChangesElsewhere() {
              @Override
              public void changed(List<String> paths, boolean recursive) {
                notices.changed(paths, recursive);
              }

              @Override
              public void changedAll() {
                notices.changedAll();
              }
            });
    KernelEntries entries = new KernelEntries(fs, nodes, replies);
    KernelLoop loop =
        new KernelLoop(
            fs,
            new KernelOps(
                entries,
                new KernelFiles(
                    fs,
                    nodes,
                    replies,
                    entries,
                    passthrough,
                    new BackingFiles(fs.client(), spec.fetchWholeMax()))));
    ThreadFactory factory = DaemonThreads.factory("fuse-kernel");
    List<Thread> serving = new ArrayList<>();
    List<Integer> fds = new ArrayList<>(List.of(fd));
    serving.add(factory.newThread(() -> loop.serve(first)));
    for (int i = 1; i < threads; i++) {
      int clone = DevFuse.cloneOf(fd);
      fds.add(clone);
      serving.add(factory.newThread(() -> loop.serve(new KernelSlot(clone))));
    }
    serving.forEach(Thread::start);
    DaemonThreads.factory("fuse-kernel-end")
        .newThread(
            () -> {
              closeWhenDone(serving, fds, notices);
              ended.run();
            })
        .start();
    LOG.info("{} mounted with Strata's FUSE loop on {} threads", at, threads);
  }

  private static long flags(Spec spec) {
    long flags = spec.readOnly() ? MS_RDONLY : 0;
    for (String o : spec.kernelOptions()) {
      flags |=
          switch (o) {
            case "nosuid" -> MS_NOSUID;
            case "nodev" -> MS_NODEV;
            case "noexec" -> MS_NOEXEC;
            case "noatime" -> MS_NOATIME;
            default -> 0;
          };
    }
    return flags;
  }

  /** The options the kernel's fuse file system takes (libfuse's own are replies' fields here). */
  private static String data(int fd, Spec spec) {
    return "fd="
        + fd
        + ",rootmode=40000,user_id=0,group_id=0,default_permissions"
        + (spec.allowOther() ? ",allow_other" : "")
        + ",max_read="
        + FuseAbi.MAX_WRITE;
  }

  /**
   * Reads and answers the kernel's first request, INIT; accepts read passthrough if the kernel
   * offers it and {@code passthrough} is given (a read-only mount).
   */
  private static void init(KernelSlot slot, Passthrough passthrough) {
    KernelRequest r = next(slot);
    if (r == null || r.opcode != FuseAbi.INIT) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION, "the kernel's first FUSE request was not INIT");
    }
    int major = r.int32(0);
    int minor = r.int32(4);
    int offered = r.int32(12);
    if (major != FuseAbi.MAJOR || minor < 23) {
      reply(slot, r.unique, -Errno.EPROTO.intValue());
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "the kernel speaks FUSE " + major + "." + minor + "; 7.23 or later is needed");
    }
    int wanted =
        FuseAbi.ASYNC_READ
            | FuseAbi.ATOMIC_O_TRUNC
            | FuseAbi.BIG_WRITES
            | FuseAbi.PARALLEL_DIROPS
            | FuseAbi.MAX_PAGES
            | FuseAbi.INIT_EXT;
    Pointer out = r.out();
    out.setMemory(0, FuseAbi.INIT_OUT, (byte) 0);
    out.putInt(0, FuseAbi.MAJOR);
    out.putInt(4, Math.min(minor, FuseAbi.MINOR));
    out.putInt(8, r.int32(8));
    out.putInt(12, offered & wanted);
    out.putShort(16, (short) 64);
    out.putShort(18, (short) 48);
    out.putInt(20, FuseAbi.MAX_WRITE);
    out.putInt(24, 1);
    out.putShort(28, (short) FuseAbi.MAX_PAGES_PER_REQUEST);
    int offered2 = (offered & FuseAbi.INIT_EXT) != 0 ? r.int32(16) : 0;
    if (passthrough != null && (offered2 & FuseAbi.PASSTHROUGH_FLAGS2) != 0) {
      out.putInt(32, FuseAbi.PASSTHROUGH_FLAGS2);
      // The backing files' own file system (ext4, xfs) is at depth 0: this mount stacks one on it.
      out.putInt(36, 1);
      passthrough.accept();
    }
    reply(slot, r.unique, FuseAbi.INIT_OUT);
    LOG.info(
        "FUSE {}.{}: flags {} of {} offered; read passthrough {}",
        major,
        minor,
        Integer.toHexString(offered & wanted),
        Integer.toHexString(offered),
        passthrough != null && passthrough.enabled()
            ? "on"
            : (offered2 & FuseAbi.PASSTHROUGH_FLAGS2) == 0
                ? "not offered by the kernel"
                : "off (a mount that is not read-only)");
  }

  private void serve(KernelSlot slot) {
    fs.servingOnThisThread(slot.caller);
    KernelRequest r;
    while ((r = next(slot)) != null) {
      slot.caller.uid.set(r.uid);
      slot.caller.gid.set(r.gid);
      slot.caller.pid.set(r.pid);
      fs.metrics().kernelRequest(r.opcode);
      int result;
      try {
        result = ops.serve(r);
      } catch (RuntimeException e) {
        LOG.warn("FUSE request {} failed", r.opcode, e);
        result = -Errno.EIO.intValue();
      }
      if (result != KernelOps.NO_REPLY) {
        reply(slot, r.unique, result);
      }
    }
  }

  /** The next request on the slot's descriptor; null once the mount is gone. */
  private static KernelRequest next(KernelSlot slot) {
    while (true) {
      long n = DevFuse.libc().read(slot.fd, slot.request, FuseAbi.REQUEST_BUFFER);
      if (n >= FuseAbi.IN_HEADER) {
        return new KernelRequest(slot, (int) n);
      }
      if (n >= 0) {
        LOG.warn("a FUSE request of {} bytes, shorter than its header; skipped", n);
        continue;
      }
      Errno e = DevFuse.lastError();
      // ENOENT: the request was interrupted before it was read.
      if (e == Errno.ENOENT || e == Errno.EINTR || e == Errno.EAGAIN) {
        continue;
      }
      if (e != Errno.ENODEV) {
        LOG.warn("reading /dev/fuse: {}; this thread stops serving", e.description());
      }
      return null;
    }
  }

  /** The reply: its header, then {@code result} bytes built after it (or the errno). */
  private static void reply(KernelSlot slot, long unique, int result) {
    int length = FuseAbi.OUT_HEADER + Math.max(result, 0);
    slot.reply.putInt(0, length);
    slot.reply.putInt(4, Math.min(result, 0));
    slot.reply.putLong(8, unique);
    if (DevFuse.libc().write(slot.fd, slot.reply, length) < 0) {
      Errno e = DevFuse.lastError();
      // ENOENT: the caller was interrupted and no longer waits for it.
      if (e != Errno.ENOENT) {
        LOG.debug("replying to FUSE request {}: {}", unique, e.description());
      }
    }
  }

  private static void closeWhenDone(
      List<Thread> serving, List<Integer> fds, KernelNotices notices) {
    try {
      for (Thread t : serving) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    notices.close();
    fds.forEach(DevFuse.libc()::close);
  }
}
