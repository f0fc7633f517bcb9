package io.strata.shell;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code strata bench} as the command list shows it. {@code bin/strata bench} runs the benchmarks
 * in a JVM of their own (they start real clusters and live in the bench module, which the shell
 * does not depend on), so this command is reached only by a shell started some other way.
 */
@Command(
    name = "bench",
    description =
        "Measure Strata end to end against raw baselines in the same run: bin/strata bench --help"
            + " lists the benches.")
final class BenchCommand implements Callable<Integer> {
  private final ShellContext ctx;

  @Unmatched List<String> args;

  BenchCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    ctx.err()
        .println(
            ("strata: benchmarks run in a JVM of their own: run them as bin/strata bench "
                    + String.join(" ", args == null ? List.of() : args))
                .strip());
    return ShellErrors.EXIT_USAGE;
  }
}
