package io.strata.shell.conf;

import io.strata.shell.ShellContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata conf}: configuration. */
@Command(name = "conf", mixinStandardHelpOptions = true, description = "Read configuration.")
public final class ConfCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx) {
    return new CommandLine(new ConfCommand()).addSubcommand(new ConfGetCommand(ctx));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
