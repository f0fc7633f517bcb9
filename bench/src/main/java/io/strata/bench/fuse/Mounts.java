package io.strata.bench.fuse;

import io.strata.core.status.StrataException;
import io.strata.core.util.Commands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** bindfs mounts and the shell tools the benchmark times. */
public final class Mounts {
  private Mounts() {}

  /**
   * Mounts {@code source} on {@code target} with bindfs, multithreaded, kernel cache on (as
   * Strata's default).
   */
  public static void bindfs(Path source, Path target) {
    run(
        List.of(
            "bindfs",
            "--multithreaded",
            "-o",
            "kernel_cache",
            source.toString(),
            target.toString()),
        "bindfs (apt-get install bindfs)");
  }

  public static void unmount(Path target) {
    run(List.of("umount", target.toString()), "umount");
  }

  static void readWhole(Path file) throws IOException {
    byte[] buf = new byte[1 << 20];
    try (InputStream in = Files.newInputStream(file)) {
      while (in.read(buf) > 0) {
        // Warming only.
      }
    }
  }

  /** Seconds that {@code ls -lR} of {@code folder} takes. */
  static double timeLsR(Path folder) {
    return time("ls -lR . > /dev/null", folder);
  }

  /**
   * Seconds that one {@code stat} of every file in {@code folder} takes (a look-up and attributes
   * each).
   */
  static double timeStat(Path folder) {
    return time("stat -- * > /dev/null", folder);
  }

  private static double time(String script, Path folder) {
    long start = System.nanoTime();
    run(List.of("sh", "-c", "cd '" + folder + "' && " + script), script);
    return (System.nanoTime() - start) / 1e9;
  }

  private static void run(List<String> cmd, String what) {
    Commands.Result r = Commands.run(cmd, Duration.ofMinutes(10), what);
    if (!r.ok()) {
      throw StrataException.unavailable(what + " failed: " + r.output(), null);
    }
  }
}
