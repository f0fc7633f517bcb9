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
   * Waits half a second before one side of a comparison runs, so that the compilations the other
   * side's run queued (in the bench's JVM, which also hosts the servers, or in a Strata process)
   * finish before it rather than during it: on 2 cores a JVM's C2 thread still compiling what the
   * previous measurement ran took a tenth of the next one's CPU.
   */
  public static void quiet() throws InterruptedException {
    Thread.sleep(500);
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
