package io.strata.bench;

import com.google.common.base.Splitter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A process's or thread's CPU time, from its /proc stat line (Linux). */
public final class ProcessCpu {
  /** USER_HZ: the unit of /proc's CPU times, 100 on every Linux this runs on. */
  static final long MILLIS_PER_TICK = 10;

  private ProcessCpu() {}

  /** User plus system CPU milliseconds process {@code pid} used so far; -1 if it is gone. */
  public static long millis(long pid) {
    if (pid <= 0) {
      return -1;
    }
    try {
      return ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")))
          * MILLIS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * utime + stime of a /proc/PID/stat (or /proc/PID/task/TID/stat) line, fields 14 and 15, counted
   * after the command's closing parenthesis (a name may hold spaces and parentheses).
   */
  static long ticks(String stat) {
    List<String> f =
        Splitter.on(' ').omitEmptyStrings().splitToList(stat.substring(stat.lastIndexOf(')') + 1));
    // f.get(0) is field 3 (the state): utime is field 14, stime field 15.
    return Long.parseLong(f.get(11)) + Long.parseLong(f.get(12));
  }
}
