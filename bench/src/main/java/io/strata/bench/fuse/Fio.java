package io.strata.bench.fuse;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs fio read jobs on a file and reads its JSON report. */
final class Fio {
  /** What one fio run measured, all jobs together. */
  record Result(double mbPerSecond, double iops, double p50Ms, double p99Ms) {}

  private Fio() {}

  static Result read(String file, String rw, String blockSize, int jobs, int seconds) {
    List<String> cmd = new ArrayList<>(List.of("fio", "--name=bench", "--filename=" + file, "--readonly",
        "--rw=" + rw, "--bs=" + blockSize, "--numjobs=" + jobs, "--group_reporting", "--ioengine=psync",
        "--time_based", "--runtime=" + seconds, "--output-format=json"));
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(seconds + 120L, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw StrataException.internal("fio failed on " + file + ": " + out.lines().limit(3).toList(), null);
      }
      // fio may print notes before the JSON document.
      JsonObject job = JsonParser.parseString(out.substring(out.indexOf('{'))).getAsJsonObject()
          .getAsJsonArray("jobs").get(0).getAsJsonObject().getAsJsonObject("read");
      JsonObject pct = job.getAsJsonObject("clat_ns").getAsJsonObject("percentile");
      return new Result(job.get("bw_bytes").getAsDouble() / 1e6, job.get("iops").getAsDouble(),
          pct.get("50.000000").getAsDouble() / 1e6, pct.get("99.000000").getAsDouble() / 1e6);
    } catch (IOException e) {
      throw StrataException.unavailable("cannot run fio (apt-get install fio): " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw StrataException.internal("interrupted", e);
    }
  }
}
