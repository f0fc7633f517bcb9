package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Commands the FUSE tests run on a mount, as a user would: coreutils, Python, fio. */
final class Commands {
  private Commands() {}

  /** A finished command: its exit code, stdout and stderr joined. */
  record Run(int code, String out) {}

  /** Runs a command to its end (at most two minutes). */
  static Run run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", List.of(cmd)).isTrue();
    return new Run(p.exitValue(), out);
  }

  /** Runs a command that must succeed. */
  static Run ok(String... cmd) throws Exception {
    Run r = run(cmd);
    assertThat(r.code()).as("%s: %s", List.of(cmd), r.out()).isZero();
    return r;
  }
}
