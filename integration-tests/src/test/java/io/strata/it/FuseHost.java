package io.strata.it;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a test of a real FUSE mount needs of this host; it skips, naming what is missing, without
 * it.
 */
final class FuseHost {
  private FuseHost() {}

  static void assumeMountable() {
    assumeThat(Files.exists(Path.of("/dev/fuse"))).as("needs /dev/fuse").isTrue();
    assumeThat(onPath("fusermount"))
        .as("needs fusermount (apt-get install fuse libfuse2)")
        .isTrue();
    assumeThat(
            Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libfuse.so.2"))
                || Files.exists(Path.of("/lib/x86_64-linux-gnu/libfuse.so.2")))
        .as("needs libfuse2")
        .isTrue();
  }

  /** Whether a FUSE mount can be made here (see {@link #assumeMountable}), without skipping. */
  static boolean mountable() {
    return Files.exists(Path.of("/dev/fuse"))
        && onPath("fusermount")
        && (Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libfuse.so.2"))
            || Files.exists(Path.of("/lib/x86_64-linux-gnu/libfuse.so.2")));
  }

  static boolean onPath(String tool) {
    return List.of(System.getenv("PATH").split(":")).stream()
        .anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
  }
}
