package io.strata.bench;

import com.google.common.base.Splitter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The host's CPU time so far, from the first line of /proc/stat (Linux). */
public final class HostCpu {
  private static final Path STAT = Path.of("/proc/stat");

  private HostCpu() {}

  /** {busy, total} clock ticks of all CPUs since boot; null where /proc/stat cannot be read. */
  public static long[] ticks() {
    try {
      List<String> lines = Files.readAllLines(STAT);
      return parse(lines.isEmpty() ? "" : lines.get(0));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * {busy, total} of a "cpu user nice system idle iowait irq softirq steal guest guest_nice" line:
   * idle and iowait are the time not busy; guest time is counted in user time already.
   */
  static long[] parse(String line) {
    List<String> f = Splitter.on(' ').omitEmptyStrings().splitToList(line);
    if (f.size() < 6 || !f.get(0).equals("cpu")) {
      throw new IllegalArgumentException("not the cpu line of /proc/stat: " + line);
    }
    long total = 0;
    for (int i = 1; i < Math.min(f.size(), 9); i++) {
      total += Long.parseLong(f.get(i));
    }
    long notBusy = Long.parseLong(f.get(4)) + Long.parseLong(f.get(5));
    return new long[] {total - notBusy, total};
  }

  /**
   * The share of the host's CPU time busy since {@code before} (a {@link #ticks()}); NaN where
   * either is unknown.
   */
  public static double busySince(long[] before) {
    long[] now = ticks();
    return before == null || now == null ? Double.NaN : busyShare(before, now);
  }

  /** The share of CPU time busy between two {@link #ticks()}. */
  static double busyShare(long[] before, long[] after) {
    long total = after[1] - before[1];
    return total <= 0 ? 0 : (double) (after[0] - before[0]) / total;
  }
}
