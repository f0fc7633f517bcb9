package io.strata.bench;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** One flat JSON object on one line, for --json. */
public final class Json {
  private Json() {}

  public static String object(Map<String, Object> fields) {
    return fields.entrySet().stream()
        .map(e -> "\"" + e.getKey() + "\":" + value(e.getValue()))
        .collect(Collectors.joining(",", "{", "}"));
  }

  private static String value(Object v) {
    if (v instanceof Double d) {
      // JSON has no NaN or infinity: a figure that could not be measured is null.
      return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.4f", d);
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    return "\"" + String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
