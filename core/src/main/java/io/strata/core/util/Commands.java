package io.strata.core.util;

import com.google.common.base.Splitter;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a local tool (fusermount, fio, a bin/ script...) to its end, its output and errors together.
 */
public final class Commands {
  private Commands() {}

  /** What a command printed (stdout and stderr, stripped) and its exit code. */
  public record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /** Whether {@code program} is an executable file in a folder of PATH. */
  public static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : Splitter.on(File.pathSeparatorChar).split(path)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs {@code cmd}; a tool that cannot be started, or that outlives {@code timeout} (it is then
   * killed), fails with UNAVAILABLE naming {@code what}, e.g. "fio (apt-get install fio)".
   */
  public static Result run(List<String> cmd, Duration timeout, String what) {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw StrataException.unavailable("cannot run " + what + ": " + e.getMessage(), e);
    }
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw StrataException.unavailable(
            what + " did not finish within " + timeout.toSeconds() + " s", null);
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      p.destroyForcibly();
      throw StrataException.unavailable("reading the output of " + what + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted while running " + what);
    }
  }
}
