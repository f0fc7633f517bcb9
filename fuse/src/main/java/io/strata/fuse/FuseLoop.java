package io.strata.fuse;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Struct;
import jnr.ffi.byref.IntByReference;
import jnr.ffi.byref.PointerByReference;
import ru.serce.jnrfuse.struct.FuseOperations;

/**
 * Serves a mount's requests on long-lived Java threads ({@code strata.fuse.threads}), each running
 * libfuse 2's {@code fuse_session_loop} on the mount's session, in place of {@code
 * fuse_main_real}'s multithreaded loop. That loop starts a native thread whenever its last idle one
 * takes a request and ends one whenever more than ten are idle, and jffi attaches a native thread
 * to the JVM for each callback and detaches it after (until its 1,000th): by the kernel's
 * tracepoints and a flight recording (docs/performance-log.md, FUSE, session 24) 3,600 to 25,800
 * threads started in 7 s of four sequential readers, a READ's p99 was 3 ms against bindfs's 0.6,
 * and 4 readers got 0.76 of bindfs's speed. Threads the JVM started are never attached or detached.
 */
final class FuseLoop {
  /** libfuse 2's set-up, session loop and teardown. */
  public interface Lib {
    Pointer fuse_setup(
        int argc,
        String[] argv,
        FuseOperations op,
        long opSize,
        PointerByReference mountpoint,
        IntByReference multithreaded,
        Pointer userData);

    Pointer fuse_get_session(Pointer fuse);

    int fuse_session_loop(Pointer session);

    void fuse_teardown(Pointer fuse, Pointer mountpoint);
  }

  private FuseLoop() {}

  /** The threads to serve on: {@code configured}, or for 0 two per core, 4 to 64. */
  static int threads(int configured) {
    if (configured > 0) {
      return configured;
    }
    return Math.max(4, Math.min(64, 2 * Runtime.getRuntime().availableProcessors()));
  }

  /**
   * Mounts {@code fs} on {@code mountPoint} with {@code options} (as {@code -o} takes them) and
   * serves it from now on on {@code threadCount} threads; once every loop has ended (the mount
   * went), tears the session down and runs {@code ended}.
   */
  static void start(
      StrataFuse fs, Path mountPoint, String options, int threadCount, Runnable ended) {
    Lib lib = LibraryLoader.create(Lib.class).failImmediately().load("fuse");
    String at = mountPoint.toAbsolutePath().toString();
    // Foreground: this process is the daemon already.
    String[] argv = {"strata", "-f", "-o", options, at};
    PointerByReference mountpoint = new PointerByReference();
    FuseOperations ops = fs.operations();
    Pointer fuse =
        lib.fuse_setup(
            argv.length, argv, ops, Struct.size(ops), mountpoint, new IntByReference(), null);
    if (fuse == null) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "cannot mount on " + at + ": libfuse refused it (its reason is in this process's log)");
    }
    fs.mountedAt(mountPoint);
    Pointer session = lib.fuse_get_session(fuse);
    ThreadFactory threads = DaemonThreads.factory("fuse-loop");
    List<Thread> loops = new ArrayList<>();
    for (int i = 0; i < threadCount; i++) {
      Thread t = threads.newThread(() -> lib.fuse_session_loop(session));
      loops.add(t);
      t.start();
    }
    Thread teardown =
        DaemonThreads.factory("fuse-teardown")
            .newThread(
                () -> {
                  try {
                    for (Thread t : loops) {
                      t.join();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                  }
                  lib.fuse_teardown(fuse, mountpoint.getValue());
                  ended.run();
                });
    teardown.start();
  }
}
