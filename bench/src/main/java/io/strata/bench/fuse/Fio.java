package io.strata.bench.fuse;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.strata.core.status.StrataException;
import io.strata.core.util.Commands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Runs fio read jobs on a file and reads its JSON report. */
final class Fio {
  /** What one fio run measured, all jobs together. */
  record Result(double mbPerSecond, double iops, double p50Ms, double p99Ms) {}

  private Fio() {}

  /**
   * {@code pageCache}: the file's pages stay in the page cache (of the folder or of the mount) from
   * the reads before; otherwise fio drops them first (its default, invalidate=1), so each read of a
   * mount goes to its FUSE daemon.
   */
  static Result read(
      String file, String rw, String blockSize, int jobs, int seconds, boolean pageCache) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "fio",
                "--name=bench",
                "--filename=" + file,
                "--readonly",
                "--invalidate=" + (pageCache ? 0 : 1),
                "--rw=" + rw,
                "--bs=" + blockSize,
                "--numjobs=" + jobs,
                "--group_reporting",
                "--ioengine=psync",
                "--time_based",
                "--runtime=" + seconds,
                "--output-format=json"));
    Commands.Result r =
        Commands.run(cmd, Duration.ofSeconds(seconds + 120L), "fio (apt-get install fio)");
    if (!r.ok()) {
      throw StrataException.internal(
          "fio failed on " + file + ": " + r.output().lines().limit(3).toList(), null);
    }
    // fio may print notes before the JSON document.
    String out = r.output();
    JsonObject job =
        JsonParser.parseString(out.substring(out.indexOf('{')))
            .getAsJsonObject()
            .getAsJsonArray("jobs")
            .get(0)
            .getAsJsonObject()
            .getAsJsonObject("read");
    JsonObject pct = job.getAsJsonObject("clat_ns").getAsJsonObject("percentile");
    return new Result(
        job.get("bw_bytes").getAsDouble() / 1e6,
        job.get("iops").getAsDouble(),
        pct.get("50.000000").getAsDouble() / 1e6,
        pct.get("99.000000").getAsDouble() / 1e6);
  }
}
