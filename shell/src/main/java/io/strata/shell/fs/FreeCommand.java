package io.strata.shell.fs;

import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs free}. */
@Command(
    name = "free",
    mixinStandardHelpOptions = true,
    description =
        "Drop the cached pages of files (every file below a directory); the UFS keeps the data.")
final class FreeCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  FreeCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      long freed = ctx.fs().free(path);
      ctx.out().println("freed " + Formats.bytes(freed) + " of " + path);
    }
  }
}
