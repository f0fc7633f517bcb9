package io.strata.shell;

import io.strata.core.conf.ConfType;
import io.strata.core.status.StrataException;

/** A duration typed on the command line, in the configuration's units. */
public final class DurationArg {
  private DurationArg() {}

  /** {@code text} in milliseconds; a one-line INVALID_ARGUMENT naming it if it is not one. */
  public static long millis(String text) {
    try {
      return ConfType.parseDuration(text).toMillis();
    } catch (IllegalArgumentException e) {
      throw StrataException.invalidArgument(
          "not a duration: " + text + " (e.g. 90s, 30min, 12h, 7d)");
    }
  }
}
