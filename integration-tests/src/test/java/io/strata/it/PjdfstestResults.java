package io.strata.it;

import com.google.common.base.Splitter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The failed checks of a pjdfstest run, from the summary prove prints: per test file (as {@code
 * chmod/00.t}), the numbers of the checks that failed, and of those planned but never run (a test
 * script that stopped early).
 */
record PjdfstestResults(int checks, Map<String, Set<Integer>> failures) {
  private static final Pattern FILE =
      Pattern.compile("^\\S*/tests/(\\S+)\\s+\\(Wstat: .*Tests: (\\d+) Failed: (\\d+)\\)");
  private static final Pattern FAILED = Pattern.compile("^\\s+Failed tests?:\\s+(.*)$");
  private static final Pattern MORE = Pattern.compile("^\\s+\\d[\\d, -]*$");
  private static final Pattern BAD_PLAN =
      Pattern.compile("You planned (\\d+) tests? but ran (\\d+)");
  private static final Pattern TOTAL = Pattern.compile("^Files=\\d+, Tests=(\\d+)");

  int failedChecks() {
    return failures.values().stream().mapToInt(Set::size).sum();
  }

  static PjdfstestResults parse(String proveOutput) {
    Map<String, Set<Integer>> failures = new TreeMap<>();
    int checks = 0;
    int unrun = 0;
    String file = null;
    boolean inFailedList = false;
    for (String line : Splitter.on('\n').split(proveOutput)) {
      Matcher header = FILE.matcher(line);
      Matcher failed = FAILED.matcher(line);
      Matcher badPlan = BAD_PLAN.matcher(line);
      Matcher total = TOTAL.matcher(line);
      boolean more = inFailedList && MORE.matcher(line).find();
      inFailedList = false;
      if (header.find()) {
        file = header.group(1);
      } else if (file != null && failed.find()) {
        failures.computeIfAbsent(file, f -> new TreeSet<>()).addAll(ranges(failed.group(1)));
        inFailedList = true;
      } else if (more) {
        failures.get(file).addAll(ranges(line));
        inFailedList = true;
      } else if (file != null && badPlan.find()) {
        int planned = Integer.parseInt(badPlan.group(1));
        int ran = Integer.parseInt(badPlan.group(2));
        Set<Integer> missing = failures.computeIfAbsent(file, f -> new TreeSet<>());
        for (int i = ran + 1; i <= planned; i++) {
          missing.add(i);
        }
        unrun += Math.max(0, planned - ran);
      } else if (total.find()) {
        checks = Integer.parseInt(total.group(1));
      }
    }
    return new PjdfstestResults(checks + unrun, failures);
  }

  /**
   * The failed checks' own lines, which prove prints with {@code --failures} ({@code not ok 53 -
   * tried ...}), each after the script it belongs to.
   */
  static List<String> failedLines(String proveOutput) {
    List<String> out = new ArrayList<>();
    String script = "";
    for (String line : proveOutput.lines().toList()) {
      int end = line.indexOf(".t ..");
      if (end >= 0) {
        script = line.substring(0, end + 2).strip();
      } else if (line.startsWith("not ok")) {
        out.add(script + ": " + line);
      }
    }
    return out;
  }

  /** {@code "4, 7-8"} or {@code "4,7-8"} as {4, 7, 8}. */
  static List<Integer> ranges(String text) {
    List<Integer> out = new ArrayList<>();
    for (String part : Splitter.on(',').split(text)) {
      String p = part.strip();
      if (p.isEmpty()) {
        continue;
      }
      int dash = p.indexOf('-');
      int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).strip());
      int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).strip());
      for (int i = from; i <= to; i++) {
        out.add(i);
      }
    }
    return out;
  }
}
