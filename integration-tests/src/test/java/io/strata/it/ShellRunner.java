package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.Configuration;
import io.strata.shell.ShellContext;
import io.strata.shell.StrataShell;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/** Runs shell command lines in this JVM against a cluster, checking that errors stay one line. */
final class ShellRunner {
  /** What one command printed and returned. */
  record Run(int code, String out, String err) {}

  private final Supplier<Configuration> conf;

  ShellRunner(Supplier<Configuration> conf) {
    this.conf = conf;
  }

  Run run(String... args) {
    return runWithInput("", args);
  }

  Run runWithInput(String input, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (ShellContext ctx =
        new ShellContext(
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out, true),
            new PrintStream(err, true),
            conf)) {
      code = StrataShell.run(ctx, args);
    }
    Run run =
        new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    assertThat(run.err())
        .as("no stack trace, at most one line")
        .doesNotContain("\tat ")
        .satisfies(e -> assertThat(e.lines().count()).isLessThanOrEqualTo(1));
    return run;
  }
}
