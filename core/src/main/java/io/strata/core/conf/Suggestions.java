package io.strata.core.conf;

import java.util.Collection;
import java.util.Optional;

/** Finds the known name closest to a mistyped one (Levenshtein distance), for "did you mean". */
public final class Suggestions {
  private Suggestions() {}

  public static Optional<String> closest(String input, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = distance(input, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    // Far-off names are not typos; suggesting them would only confuse.
    int allowed = Math.max(2, input.length() / 4);
    return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
  }

  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
