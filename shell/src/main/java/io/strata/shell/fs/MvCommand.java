package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs mv}. */
@Command(
    name = "mv",
    mixinStandardHelpOptions = true,
    description = "Rename a file or directory (within one mount).")
final class MvCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "SRC", description = "Existing Strata path.")
  String src;

  @Parameters(index = "1", paramLabel = "DST", description = "New Strata path; must not exist.")
  String dst;

  MvCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ctx.fs().rename(src, dst);
    ctx.out().println("renamed " + src + " to " + dst);
  }
}
