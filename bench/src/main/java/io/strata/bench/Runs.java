package io.strata.bench;

import java.util.List;
import java.util.Map;

/**
 * Measurements repeated {@code --warmups} times untimed, then {@code --runs} times timed: run
 * numbers below 0 are warm-ups, printed but not kept.
 */
public final class Runs {
  private Runs() {}

  /** Keeps a timed run's figure; a warm-up's only prints. */
  public static void keep(List<Double> figures, int run, double figure) {
    if (run >= 0) {
      figures.add(figure);
    }
  }

  /**
   * Waits, before one side of a comparison runs, until the host's CPUs are quiet: at least half a
   * second, then until a tenth of a second passes with under {@value #QUIET_BUSY} of them busy, at
   * most {@value #QUIET_MAX_MS} ms. So the compilations the other side's run queued (in the bench's
   * JVM, which also hosts the servers, or in a Strata process) finish before it rather than during
   * it: on 2 cores one JVM's C2 thread went on compiling for up to 1.3 s after an SDK round, a
   * fixed half second later, and took a tenth to a fifth of the next Strata round's CPU.
   */
  public static void quiet() throws InterruptedException {
    Thread.sleep(500);
    long deadline = System.nanoTime() + (QUIET_MAX_MS - 500) * 1_000_000L;
    long[] before = HostCpu.ticks();
    while (before != null && System.nanoTime() < deadline) {
      Thread.sleep(100);
      long[] after = HostCpu.ticks();
      if (after == null || HostCpu.busyShare(before, after) < QUIET_BUSY) {
        return;
      }
      before = after;
    }
  }

  /** The share of the host's CPU time busy in a quiet tenth of a second. */
  static final double QUIET_BUSY = 0.15;

  static final long QUIET_MAX_MS = 5_000;

  public static String label(int run) {
    return run < 0 ? "warm-up" : "run " + (run + 1);
  }

  /**
   * Prints min, median and max of {@code figures}, and puts the median under {@code name} (and the
   * others under {@code name_min} and {@code name_max}) for the JSON line.
   */
  public static void report(
      Map<String, Object> out, String name, List<Double> figures, String unit) {
    Stats s = Stats.of(figures);
    System.out.println(name + ": " + s.format(unit));
    out.put(name, s.median());
    out.put(name + "_min", s.min());
    out.put(name + "_max", s.max());
  }
}
