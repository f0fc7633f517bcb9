package io.strata.shell;

import io.strata.core.process.Version;
import picocli.CommandLine.Command;

/** {@code strata version}. */
@Command(
    name = "version",
    mixinStandardHelpOptions = true,
    description = "Print the version of Strata.")
final class VersionCommand implements Runnable {
  private final ShellContext ctx;

  VersionCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ctx.out().println("Strata " + Version.VERSION);
  }
}
