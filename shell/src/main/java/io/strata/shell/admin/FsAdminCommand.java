package io.strata.shell.admin;

import io.strata.shell.ShellContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata fsadmin}: operating the cluster. */
@Command(name = "fsadmin", mixinStandardHelpOptions = true, description = "Inspect and operate the cluster.")
public final class FsAdminCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx) {
    return new CommandLine(new FsAdminCommand())
        .addSubcommand(new ReportCommand(ctx))
        .addSubcommand(new WorkerStateCommand.Decommission(ctx))
        .addSubcommand(new WorkerStateCommand.Recommission(ctx))
        .addSubcommand(JournalCommand.build(ctx))
        .addSubcommand(new io.strata.shell.conf.UpdateConfCommand(ctx));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
