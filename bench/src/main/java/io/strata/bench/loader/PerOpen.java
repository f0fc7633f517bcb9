package io.strata.bench.loader;

import io.strata.bench.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Figures per open (or per file) of the loader bench, by name, over its runs. */
final class PerOpen {
  private final Map<String, List<Double>> byName = new LinkedHashMap<>();

  void add(String name, double value) {
    byName.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
  }

  /** The median of the values of {@code name}; NaN (null in the JSON) if none was measured. */
  double median(String name) {
    List<Double> values = byName.get(name);
    return values == null ? Double.NaN : Stats.of(values).median();
  }
}
