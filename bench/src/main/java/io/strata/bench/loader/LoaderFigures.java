package io.strata.bench.loader;

import io.strata.bench.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code bench loader} measured over its runs: the samples per second of every side and epoch
 * by point, their ratios to bindfs, the figures per open of the headline process count; and the
 * summary it prints and gives as JSON. The figures of a shape carry its prefix (none for the
 * small-file shape).
 */
final class LoaderFigures {
  /** Per open of the headline's warm epochs. */
  final PerOpen warmPerOpen = new PerOpen();

  /** Per open (or file) of the headline's loaded epochs. */
  final PerOpen loadedPerOpen = new PerOpen();

  /** Per file of the headline's cold epochs (their index included). */
  final PerOpen coldPerFile = new PerOpen();

  private final Map<String, List<Double>> ratios = new LinkedHashMap<>();
  private final Map<String, List<Double>> rates = new LinkedHashMap<>();

  /** One run of a point: {@code samplesPerSecond} by side and epoch (index seconds beside). */
  void point(String prefix, int processes, Map<String, Double> samplesPerSecond) {
    for (String kind : List.of("cold", "warm", "loaded")) {
      double r = samplesPerSecond.get("strata_" + kind) / samplesPerSecond.get("bindfs_" + kind);
      add(ratios, prefix + kind + "_vs_bindfs_p" + processes, r);
    }
    samplesPerSecond.forEach((k, v) -> add(rates, prefix + k + "_p" + processes, v));
  }

  /** One run of the shards: Strata's cold and warm epochs against bindfs's. */
  void shards(double coldVsBindfs, double warmVsBindfs) {
    add(ratios, "shards_cold_vs_bindfs", coldVsBindfs);
    add(ratios, "shards_warm_vs_bindfs", warmVsBindfs);
  }

  /**
   * The summary: per shape its headline ratios (median at {@code headline} processes) and figures
   * per open, {@code settings} as given, then every point's median, min and max; printed as it is
   * made, one line per point.
   */
  Map<String, Object> summary(List<String> prefixes, int headline, Map<String, Object> settings) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String x : prefixes) {
      for (String kind : List.of("cold", "warm", "loaded")) {
        out.put(
            x + kind + "_vs_bindfs",
            Stats.of(ratios.get(x + kind + "_vs_bindfs_p" + headline)).median());
      }
      out.put(x + "getattr_per_open", warmPerOpen.median(x + "getattr"));
      out.put(x + "lookup_per_open", warmPerOpen.median(x + "lookup"));
      out.put(x + "read_upcalls_per_loaded_open", loadedPerOpen.median(x + "read"));
      out.put(x + "lookup_per_loaded_open", loadedPerOpen.median(x + "lookup"));
      out.put(x + "fuse_cpu_us_per_cold_file", coldPerFile.median(x + "fuse_cpu_us"));
      out.put(x + "worker_cpu_us_per_cold_file", coldPerFile.median(x + "worker_cpu_us"));
      out.put(x + "worker_calls_per_loaded_open", loadedPerOpen.median(x + "worker_calls"));
      out.put(x + "fuse_cpu_us_per_loaded_file", loadedPerOpen.median(x + "fuse_cpu_us"));
      out.put(x + "worker_cpu_us_per_loaded_file", loadedPerOpen.median(x + "worker_cpu_us"));
    }
    if (ratios.containsKey("shards_cold_vs_bindfs")) {
      double cold = Stats.of(ratios.get("shards_cold_vs_bindfs")).median();
      double warm = Stats.of(ratios.get("shards_warm_vs_bindfs")).median();
      out.put("shards_vs_bindfs", Math.min(cold, warm));
    }
    out.putAll(settings);
    double worst = Double.MAX_VALUE;
    for (Map.Entry<String, List<Double>> e : ratios.entrySet()) {
      Stats st = Stats.of(e.getValue());
      System.out.println(e.getKey() + ": " + st.format("x"));
      out.put(e.getKey(), st.median());
      out.put(e.getKey() + "_min", st.min());
      out.put(e.getKey() + "_max", st.max());
      worst = Math.min(worst, st.median());
    }
    out.put("worst_point_vs_bindfs", worst);
    rates.forEach(
        (k, v) -> {
          Stats st = Stats.of(v);
          boolean seconds = k.contains("_index_s");
          System.out.println(k + ": " + st.format(seconds ? "s" : "samples/s"));
          out.put(seconds ? k : k + "_samples_per_s", st.median());
        });
    return out;
  }

  private static void add(Map<String, List<Double>> to, String name, double value) {
    to.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
  }
}
