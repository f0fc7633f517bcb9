package io.strata.shell.job;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFailure;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.shell.Formats;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** A load job as people and scripts read it: the report, one JSON object, one table row. */
public final class LoadReport {
  private LoadReport() {}

  public static String state(LoadState s) {
    return s.name().replace("LOAD_", "").toLowerCase(Locale.ROOT);
  }

  public static boolean finished(LoadJob job) {
    return job.getState() != LoadState.LOAD_RUNNING;
  }

  /** Seconds the job ran (until now if it still runs). */
  public static double seconds(LoadJob job) {
    long end = finished(job) ? job.getFinishedMs() : System.currentTimeMillis();
    return Math.max(0.001, (end - job.getSubmittedMs()) / 1000.0);
  }

  public static void print(LoadJob job, PrintStream out) {
    LoadCounters c = job.getCounters();
    double s = seconds(job);
    out.printf(
        Locale.ROOT, "load job %d of %s: %s%n", job.getId(), job.getPath(), state(job.getState()));
    if (!job.getMessage().isEmpty()) {
      out.println("  " + job.getMessage());
    }
    if (!job.getOwner().isEmpty()) {
      out.println("  owner:      " + job.getOwner());
    }
    out.printf(Locale.ROOT, "  files:      %d done, %d failed%n", c.getFiles(), c.getFilesFailed());
    out.printf(
        Locale.ROOT,
        "  bytes:      %s (%s read from the under-storage; replication %d)%n",
        Formats.bytes(c.getBytes()),
        Formats.bytes(c.getBytesLoaded()),
        job.getOptions().getReplication());
    if (c.getFilesFailed() > 0) {
      out.printf(
          Locale.ROOT,
          "  not cached: %s in %d files (below)%n",
          Formats.bytes(c.getBytesFailed()),
          c.getFilesFailed());
    }
    out.printf(
        Locale.ROOT, "  time:       %.1f s, %s/s%n", s, Formats.bytes((long) (c.getBytes() / s)));
    if (c.getFilesFailed() > 0) {
      out.println(
          "  failed files"
              + (c.getFilesFailed() > job.getFailuresCount()
                  ? " (the first " + job.getFailuresCount() + ")"
                  : "")
              + ":");
      for (LoadFailure f : job.getFailuresList()) {
        out.println("    " + f.getPath() + ": " + f.getReason());
      }
    }
  }

  public static String json(LoadJob job) {
    LoadCounters c = job.getCounters();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", job.getId());
    m.put("path", job.getPath());
    m.put("owner", job.getOwner());
    m.put("state", state(job.getState()));
    m.put("message", job.getMessage());
    // How the job listed its folder: "flat" (one paged listing of an object store), "folders".
    m.put("walk", job.getFlatWalk() ? "flat" : "folders");
    m.put("files", c.getFiles());
    m.put("files_failed", c.getFilesFailed());
    m.put("bytes", c.getBytes());
    m.put("bytes_loaded", c.getBytesLoaded());
    m.put("bytes_failed", c.getBytesFailed());
    m.put("seconds", seconds(job));
    m.put("bytes_per_second", (long) (c.getBytes() / seconds(job)));
    String fields =
        m.entrySet().stream()
            .map(e -> quote(e.getKey()) + ":" + value(e.getValue()))
            .collect(Collectors.joining(","));
    List<String> failures =
        job.getFailuresList().stream()
            .map(
                f ->
                    "{\"path\":" + quote(f.getPath()) + ",\"reason\":" + quote(f.getReason()) + "}")
            .toList();
    return "{" + fields + ",\"failures\":[" + String.join(",", failures) + "]}";
  }

  public static String row(LoadJob job) {
    LoadCounters c = job.getCounters();
    return String.format(
        Locale.ROOT,
        "%-15d %-10s %8d %8d %10s  %s",
        job.getId(),
        state(job.getState()),
        c.getFiles(),
        c.getFilesFailed(),
        Formats.bytes(c.getBytes()),
        job.getPath());
  }

  public static String header() {
    return String.format(
        Locale.ROOT,
        "%-15s %-10s %8s %8s %10s  %s",
        "ID",
        "STATE",
        "FILES",
        "FAILED",
        "BYTES",
        "PATH");
  }

  private static String value(Object v) {
    if (v instanceof Double d) {
      return String.format(Locale.ROOT, "%.3f", d);
    }
    return v instanceof Number ? v.toString() : quote(String.valueOf(v));
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> {
          if (ch < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
