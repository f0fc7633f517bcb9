package io.strata.shell.conf;

import io.strata.shell.ShellContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata conf}: configuration, this host's and the cluster's. */
@Command(name = "conf", mixinStandardHelpOptions = true,
    description = "Read configuration, and change dynamic keys on the running cluster.")
public final class ConfCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx) {
    return new CommandLine(new ConfCommand())
        .addSubcommand(new ConfGetCommand(ctx))
        .addSubcommand(new ConfListCommand(ctx))
        .addSubcommand(new UpdateConfCommand(ctx))
        .addSubcommand(new UnsetConfCommand(ctx));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
