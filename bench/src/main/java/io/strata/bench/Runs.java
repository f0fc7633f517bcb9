package io.strata.bench;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Measurements repeated {@code --warmups} times untimed (or more: {@link Rounds}), then {@code
 * --runs} times timed: run numbers below 0 are warm-ups, printed but not kept.
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

  /**
   * Writes the host's dirty pages out ({@code sync}), so that the kernel's write-back of what a
   * load just put in the cache's segment files (hundreds of MiB, flushed some 30 s later) does not
   * land in a later timed read, of one side or the other at random.
   */
  public static void flushed() throws InterruptedException {
    try {
      Process sync = new ProcessBuilder("sync").inheritIO().start();
      if (!sync.waitFor(60, TimeUnit.SECONDS)) {
        sync.destroy();
      }
    } catch (IOException e) {
      // No sync command: the reads run with write-back pending, as before.
    }
  }

  /** The share of the host's CPU time busy in a quiet tenth of a second. */
  static final double QUIET_BUSY = 0.15;

  static final long QUIET_MAX_MS = 5_000;

  /** Compilers busier than this share of a round's time: the round was not yet of warm code. */
  static final double COMPILING = 0.05;

  /**
   * The rounds of one measurement: {@code min} warm-ups, then more while the JVMs' compilers took
   * over {@value #COMPILING} of the last round's time, up to {@code max} warm-ups in all; then the
   * timed runs. A worker in service compiled its paths long ago; a fixed count of warm-ups left the
   * per-object paths of a load compiling through the timed runs (each of its 1,000-object rounds is
   * under a second, and a method runs 5,000 to 15,000 times before C2 compiles it). Use as {@code
   * for (int run = rounds.first(); run < runs; run = rounds.next(run))}; run numbers below 0 are
   * warm-ups.
   */
  public static final class Rounds {
    private final String name;
    private final int min;
    private final int max;
    private final LongSupplier compilerMillis;
    private int warmups;
    private long cpuAtStart;
    private long startNanos;

    public Rounds(String name, int min, int max, Compilers compilers) {
      this(name, min, max, compilers::cpuMillis);
    }

    /** {@code compilerMillis}: the compilers' CPU so far, negative where it cannot be known. */
    Rounds(String name, int min, int max, LongSupplier compilerMillis) {
      this.name = name;
      this.min = min;
      this.max = Math.max(min, max);
      this.compilerMillis = compilerMillis;
    }

    public int first() {
      warmups = min;
      cpuAtStart = compilerMillis.getAsLong();
      startNanos = System.nanoTime();
      return -min;
    }

    /** The run after {@code run}, which just ended: one more warm-up if it was still compiling. */
    public int next(int run) {
      long cpu = compilerMillis.getAsLong();
      long now = System.nanoTime();
      double share =
          cpu < 0 || cpuAtStart < 0
              ? 0
              : Math.max(0, cpu - cpuAtStart) / 1e3 / Math.max(1e-9, (now - startNanos) / 1e9);
      cpuAtStart = cpu;
      startNanos = now;
      if (run == -1 && share > COMPILING && warmups < max) {
        warmups++;
        System.out.printf(
            Locale.ROOT,
            "%s: the compilers took %.0f %% of that warm-up, one more%n",
            name,
            share * 100);
        return -1;
      }
      if (run == -1) {
        System.out.printf(
            Locale.ROOT,
            "%s: %d warm-ups, the compilers at %.0f %% of the last%s%n",
            name,
            warmups,
            share * 100,
            share > COMPILING ? " (--max-warmups reached)" : "");
      }
      return run + 1;
    }

    /** Warm-ups run so far. */
    public int warmups() {
      return warmups;
    }
  }

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
