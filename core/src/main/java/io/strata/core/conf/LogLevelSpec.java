package io.strata.core.conf;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The text form of strata.log.levels: {@code logger=LEVEL} entries. */
public final class LogLevelSpec {
  private static final Set<String> LEVELS =
      Set.of("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL");

  private LogLevelSpec() {}

  static boolean valid(List<String> entries) {
    try {
      parse(entries);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Logger name to level name, in the order given. */
  public static Map<String, String> parse(List<String> entries) {
    Map<String, String> levels = new LinkedHashMap<>();
    for (String e : entries) {
      int eq = e.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(e);
      }
      String level = e.substring(eq + 1).trim().toUpperCase(Locale.ROOT);
      if (!LEVELS.contains(level)) {
        throw new IllegalArgumentException(e);
      }
      levels.put(e.substring(0, eq).trim(), level);
    }
    return levels;
  }
}
