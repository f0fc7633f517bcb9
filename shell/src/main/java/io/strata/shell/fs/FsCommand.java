package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata fs}: file operations on the Strata namespace. */
@Command(name = "fs", mixinStandardHelpOptions = true, description = "Work with files and directories in Strata.")
public final class FsCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx) {
    return new CommandLine(new FsCommand())
        .addSubcommand(new LsCommand(ctx))
        .addSubcommand(new StatCommand(ctx))
        .addSubcommand(new CatCommand(ctx))
        .addSubcommand(new HeadCommand(ctx))
        .addSubcommand(new TailCommand(ctx))
        .addSubcommand(new MkdirCommand(ctx))
        .addSubcommand(new RmCommand(ctx))
        .addSubcommand(new MvCommand(ctx))
        .addSubcommand(new CopyFromLocalCommand(ctx))
        .addSubcommand(new CopyToLocalCommand(ctx))
        .addSubcommand(new CountCommand(ctx))
        .addSubcommand(new DuCommand(ctx))
        .addSubcommand(new FreeCommand(ctx))
        .addSubcommand(new DistributedLoadCommand(ctx));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
