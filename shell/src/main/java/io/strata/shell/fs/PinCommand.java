package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs pin PATH...}. */
@Command(
    name = "pin",
    mixinStandardHelpOptions = true,
    description =
        "Keep the cached data of files (every file below a directory) from eviction, up to each "
            + "worker's pin capacity (strata.worker.pin.capacity.percent of its cache; see fsadmin "
            + "report capacity). Pinning caches nothing: distributedLoad does. Kept across "
            + "restarts.")
final class PinCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  PinCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      PathPolicyCalls.set(ctx, path, true, null);
      ctx.out().println("pinned " + path);
    }
  }
}
