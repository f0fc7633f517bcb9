package io.strata.bench.startup;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The floor every Java command stands on: a JVM that starts, prints its version and exits. */
final class Jvm {
  private Jvm() {}

  static double bareStart() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(
                List.of(
                    java.toString(),
                    "-Xshare:auto",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC",
                    "-version"))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("java -version did not finish within 30 s");
    }
    return (System.nanoTime() - start) / 1e9;
  }
}
