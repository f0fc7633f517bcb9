package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs unpin PATH...}. */
@Command(
    name = "unpin",
    mixinStandardHelpOptions = true,
    description = "Let the cached data of pinned paths be evicted again like any other.")
final class UnpinCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Pinned Strata paths.")
  List<String> paths;

  UnpinCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      PathPolicyCalls.set(ctx, path, false, null);
      ctx.out().println("unpinned " + path);
    }
  }
}
