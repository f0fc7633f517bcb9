package io.strata.fuse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which process opened each descriptor written through the mount, and whether it has closed it yet.
 *
 * <p>The kernel sends a flush for every close(2) of any copy of a descriptor, and a program that
 * starts another closes in the child every descriptor it does not pass on: a JVM's or Python's
 * spawn, a shell's fork. A writer's file is published at a close ({@link Writes}), so each such
 * spawn would publish the file half written (and turn the rest of the write into a copy and a
 * rewrite), and would wait for the under-storage before the child could run: a spawn that restarts
 * the worker the publication needs then waits for itself. So a close by another process publishes
 * only once the opener has closed its own descriptor (a child handed the file, as {@code
 * Popen(stdout=f)} does, publishes it at its exit); while the opener holds it, the opener's close
 * or the release of the last copy publishes.
 *
 * <p>The kernel names the calling thread; threads of one process share their descriptors, so the
 * comparison is by process (its thread group id, from /proc). Where that cannot be read (a caller
 * in a namespace this process does not see is 0), every close publishes, as before. Thread-safe.
 */
final class Openers {
  private final Map<Long, Opener> byHandle = new ConcurrentHashMap<>();

  /** Thread {@code tid} opened {@code handle} for writing. */
  void opened(long handle, long tid) {
    byHandle.put(handle, new Opener(processOf(tid)));
  }

  /** Whether the close of {@code handle} by thread {@code tid} publishes what was written. */
  boolean closePublishes(long handle, long tid) {
    Opener opener = byHandle.get(handle);
    if (opener == null || opener.process == 0) {
      return true;
    }
    long closer = processOf(tid);
    if (closer == 0 || closer == opener.process) {
      opener.closed = true;
      return true;
    }
    return opener.closed;
  }

  void released(long handle) {
    byHandle.remove(handle);
  }

  private static final class Opener {
    final long process;
    volatile boolean closed;

    Opener(long process) {
      this.process = process;
    }
  }

  /** The process (thread group) of thread {@code tid}, or 0 if /proc does not say. */
  static long processOf(long tid) {
    if (tid <= 0) {
      return 0;
    }
    // "Tgid:" is the fourth line of status, after Name (at most 64 bytes escaped), Umask and State.
    byte[] head = new byte[512];
    int n;
    try (InputStream in = Files.newInputStream(Path.of("/proc", Long.toString(tid), "status"))) {
      n = in.readNBytes(head, 0, head.length);
    } catch (IOException e) {
      return 0;
    }
    String status = new String(head, 0, n, StandardCharsets.US_ASCII);
    int at = status.indexOf("\nTgid:");
    if (at < 0) {
      return 0;
    }
    int end = status.indexOf('\n', at + 1);
    if (end < 0) {
      return 0;
    }
    try {
      return Long.parseLong(status.substring(at + 6, end).trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
