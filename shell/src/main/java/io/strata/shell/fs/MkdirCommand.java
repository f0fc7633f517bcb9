package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs mkdir}. */
@Command(
    name = "mkdir",
    mixinStandardHelpOptions = true,
    description = "Create directories, and any missing parents; fails if one already exists.")
final class MkdirCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  MkdirCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      ctx.fs().mkdir(path, true);
      ctx.out().println("created " + path);
    }
  }
}
