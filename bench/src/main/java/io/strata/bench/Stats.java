package io.strata.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Min, median and max of a few measurements. */
public record Stats(double min, double median, double max, int n) {
  public static Stats of(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    Collections.sort(v);
    int n = v.size();
    double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    return new Stats(v.get(0), median, v.get(n - 1), n);
  }

  public String format(String unit) {
    return String.format(
        Locale.ROOT,
        "min %.3f %s, median %.3f %s, max %.3f %s (%d runs)",
        min,
        unit,
        median,
        unit,
        max,
        unit,
        n);
  }
}
