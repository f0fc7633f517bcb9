package io.strata.bench.loader;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One epoch of the loader ({@code loader.py}, run by python3 as PyTorch's DataLoader runs its
 * workers: one process each): samples per second, and every sample checked against the manifest.
 */
final class Epoch {
  /** What one epoch did. */
  record Result(
      long samples,
      long bytes,
      double seconds,
      double indexSeconds,
      long mismatches,
      long errors,
      String bad) {}

  private final Path script;

  private Epoch(Path script) {
    this.script = script;
  }

  /** The loader, written into {@code work} from this jar. */
  static Epoch in(Path work) throws IOException {
    Path script = work.resolve("loader.py");
    try (InputStream in = Epoch.class.getResourceAsStream("loader.py")) {
      if (in == null) {
        throw new IOException("loader.py is missing from the bench jar");
      }
      Files.copy(in, script);
    }
    return new Epoch(script);
  }

  /**
   * Reads every sample of {@code manifest} under {@code root} with {@code processes} readers in the
   * order {@code seed} shuffles them; {@code stream} reads each in 1 MiB pieces (a shard) rather
   * than whole (a sample). Fails on any mismatch or error: a fast wrong read is no result.
   */
  Result run(Path manifest, Path root, int processes, long seed, boolean stream)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("python3", script.toString()));
    cmd.addAll(
        List.of(
            manifest.toString(),
            root.toString(),
            String.valueOf(processes),
            String.valueOf(seed),
            "64",
            stream ? "stream" : "whole"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("the loader failed on " + root + ": " + out.strip());
    }
    Result r =
        new Result(
            number(out, "samples"),
            number(out, "bytes"),
            Double.parseDouble(field(out, "seconds")),
            Double.parseDouble(field(out, "index_seconds")),
            number(out, "mismatches"),
            number(out, "errors"),
            field(out, "first_bad"));
    if (r.mismatches() > 0 || r.errors() > 0) {
      throw new IllegalStateException(
          root
              + ": "
              + r.mismatches()
              + " samples of the wrong bytes, "
              + r.errors()
              + " errors; first: "
              + r.bad());
    }
    return r;
  }

  private static long number(String json, String name) {
    return Long.parseLong(field(json, name));
  }

  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": (\"([^\"]*)\"|[0-9.eE+-]+)").matcher(json);
    if (!m.find()) {
      throw new IllegalStateException("the loader printed no " + name + ": " + json.strip());
    }
    return m.group(2) != null ? m.group(2) : m.group(1);
  }
}
