package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.strata.core.conf.Configuration;
import io.strata.fuse.FuseProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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

  /** A mount of Strata folder {@code folder} at {@code mnt}, in this JVM, ready. */
  static FuseProcess mount(Configuration conf, Path mnt, String folder) throws Exception {
    FuseProcess fuse = new FuseProcess(conf, mnt, folder, false);
    fuse.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> fuse.notReadyReason().isEmpty());
    return fuse;
  }

  /** Runs a Python program of {@code lines}; returns what it printed, once it exited with 0. */
  static String python(String... lines) throws Exception {
    Process p =
        new ProcessBuilder("python3", "-c", String.join("\n", lines))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("python finished").isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  static boolean onPath(String tool) {
    return io.strata.core.util.Commands.onPath(tool);
  }

  /**
   * What {@code cmd} prints, run as user and group nobody (65534, no other groups, no
   * capabilities); system programs only (perl, cat): nobody may not reach root's own.
   */
  static String asNobody(String... cmd) throws Exception {
    return as(65534, Path.of("/"), cmd).out();
  }

  /** How a command run by {@link #as} ended: its exit code and what it printed (both streams). */
  record Run(int code, String out) {}

  /**
   * {@code cmd} run in folder {@code cwd} as user and group {@code id}, with no other groups and no
   * capabilities.
   */
  static Run as(int id, Path cwd, String... cmd) throws Exception {
    List<String> full =
        Stream.concat(
                Stream.of(
                    "setpriv",
                    "--reuid=" + id,
                    "--regid=" + id,
                    "--clear-groups",
                    "--inh-caps=-all"),
                Stream.of(cmd))
            .toList();
    Process p = new ProcessBuilder(full).directory(cwd.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s finished", cmd[0]).isTrue();
    return new Run(p.exitValue(), out);
  }

  /** Skips unless commands can be run as another user (setpriv, from util-linux). */
  static void assumeOtherUsers() {
    assumeThat(onPath("setpriv")).as("running as another user needs setpriv (util-linux)").isTrue();
  }
}
