package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs unsetTtl PATH...}. */
@Command(
    name = "unsetTtl",
    mixinStandardHelpOptions = true,
    description = "Remove the TTL of paths: their cached data stays until evicted.")
final class UnsetTtlCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths with a TTL.")
  List<String> paths;

  UnsetTtlCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      PathPolicyCalls.set(ctx, path, null, 0L);
      ctx.out().println("removed the TTL of " + path);
    }
  }
}
