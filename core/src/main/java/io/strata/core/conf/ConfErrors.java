package io.strata.core.conf;

import io.strata.core.status.StrataException;
import java.util.Optional;

/** The configuration's one-line errors; each names the key and where the bad value came from. */
final class ConfErrors {
  private ConfErrors() {}

  static StrataException unknownKey(String name, String where, Optional<String> suggestion) {
    return StrataException.invalidArgument(
        "unknown configuration key '"
            + name
            + "'"
            + origin(where)
            + suggestion.map(s -> " (did you mean '" + s + "'?)").orElse(""));
  }

  static StrataException badValue(ConfKey<?> key, String value, String where, String problem) {
    return StrataException.invalidArgument(
        "invalid value '" + value + "' for " + key.name() + origin(where) + ": " + problem);
  }

  private static String origin(String where) {
    return where == null || where.isEmpty() ? "" : " in " + where;
  }
}
