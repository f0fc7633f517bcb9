package io.strata.shell;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the shell prints sizes, modes and times. */
public final class Formats {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

  private Formats() {}

  public static String bytes(long n) {
    double v = n;
    int u = 0;
    while (v >= 1024 && u < UNITS.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? n + "B" : String.format(Locale.ROOT, "%.1f%s", v, UNITS[u]);
  }

  public static String size(long n, boolean human) {
    return human ? bytes(n) : Long.toString(n);
  }

  public static String time(long epochMs) {
    return TIME.format(Instant.ofEpochMilli(epochMs));
  }

  /** {@code drwxr-xr-x} style. */
  public static String mode(int mode, boolean directory) {
    StringBuilder sb = new StringBuilder(directory ? "d" : "-");
    String letters = "rwx";
    for (int bit = 8; bit >= 0; bit--) {
      sb.append((mode & (1 << bit)) != 0 ? letters.charAt(2 - bit % 3) : '-');
    }
    return sb.toString();
  }

  public static String percent(long part, long whole) {
    return whole == 0
        ? "100%"
        : String.format(Locale.ROOT, "%d%%", Math.round(100.0 * part / whole));
  }
}
