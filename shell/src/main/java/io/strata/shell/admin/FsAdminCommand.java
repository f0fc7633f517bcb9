package io.strata.shell.admin;

import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import io.strata.shell.conf.UpdateConfCommand;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata fsadmin}: operating the cluster. */
@Command(
    name = "fsadmin",
    mixinStandardHelpOptions = true,
    description = "Inspect and operate the cluster.")
public final class FsAdminCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .leaf(ReportCommand.class, () -> new ReportCommand(ctx))
        .leaf(WorkerStateCommand.Decommission.class, () -> new WorkerStateCommand.Decommission(ctx))
        .leaf(WorkerStateCommand.Recommission.class, () -> new WorkerStateCommand.Recommission(ctx))
        .leaf(WorkerStateCommand.Remove.class, () -> new WorkerStateCommand.Remove(ctx))
        .group(JournalCommand.class, rest -> JournalCommand.build(ctx, rest))
        .group(TokenCommand.class, rest -> TokenCommand.build(ctx, rest))
        .group(S3CredentialsCommand.class, rest -> S3CredentialsCommand.build(ctx, rest))
        .leaf(UpdateConfCommand.class, () -> new UpdateConfCommand(ctx))
        .build(new FsAdminCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
