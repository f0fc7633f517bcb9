package io.strata.shell.conf;

import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata conf}: configuration, this host's and the cluster's. */
@Command(
    name = "conf",
    mixinStandardHelpOptions = true,
    description = "Read configuration, and change dynamic keys on the running cluster.")
public final class ConfCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .leaf(ConfGetCommand.class, () -> new ConfGetCommand(ctx))
        .leaf(ConfListCommand.class, () -> new ConfListCommand(ctx))
        .leaf(UpdateConfCommand.class, () -> new UpdateConfCommand(ctx))
        .leaf(UnsetConfCommand.class, () -> new UnsetConfCommand(ctx))
        .build(new ConfCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
