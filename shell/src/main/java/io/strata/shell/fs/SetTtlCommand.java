package io.strata.shell.fs;

import io.strata.core.status.StrataException;
import io.strata.shell.DurationArg;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs setTtl PATH DURATION}. */
@Command(
    name = "setTtl",
    mixinStandardHelpOptions = true,
    description =
        "Free the cached data of files (every file below a directory) DURATION after a worker "
            + "cached them. The files stay in the under-storage: a TTL never deletes. The nearest "
            + "TTL above a file applies. Kept across restarts.")
final class SetTtlCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "PATH", description = "Strata path.")
  String path;

  @Parameters(
      index = "1",
      paramLabel = "DURATION",
      description = "e.g. 90s, 30min, 12h, 7d (at least 1s).")
  String duration;

  SetTtlCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    long ms = DurationArg.millis(duration);
    if (ms < 1000) {
      throw StrataException.invalidArgument("a TTL is at least 1s: " + duration);
    }
    PathPolicyCalls.set(ctx, path, null, ms);
    ctx.out()
        .println(
            "cached data of "
                + path
                + " is freed "
                + PathPolicyCalls.duration(ms)
                + " after it is cached");
  }
}
