package io.strata.shell.fs;

import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata fs}: file operations on the Strata namespace. */
@Command(
    name = "fs",
    mixinStandardHelpOptions = true,
    description = "Work with files and directories in Strata.")
public final class FsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .leaf(LsCommand.class, () -> new LsCommand(ctx))
        .leaf(StatCommand.class, () -> new StatCommand(ctx))
        .leaf(CatCommand.class, () -> new CatCommand(ctx))
        .leaf(HeadCommand.class, () -> new HeadCommand(ctx))
        .leaf(TailCommand.class, () -> new TailCommand(ctx))
        .leaf(MkdirCommand.class, () -> new MkdirCommand(ctx))
        .leaf(RmCommand.class, () -> new RmCommand(ctx))
        .leaf(MvCommand.class, () -> new MvCommand(ctx))
        .leaf(CopyFromLocalCommand.class, () -> new CopyFromLocalCommand(ctx))
        .leaf(CopyToLocalCommand.class, () -> new CopyToLocalCommand(ctx))
        .leaf(CountCommand.class, () -> new CountCommand(ctx))
        .leaf(DuCommand.class, () -> new DuCommand(ctx))
        .leaf(FreeCommand.class, () -> new FreeCommand(ctx))
        .leaf(DistributedLoadCommand.class, () -> new DistributedLoadCommand(ctx))
        .leafLine(MountCommand.class, () -> MountCommand.line(ctx))
        .leaf(UnmountCommand.class, () -> new UnmountCommand(ctx))
        .leaf(InvalidateCommand.class, () -> new InvalidateCommand(ctx))
        .leaf(ChmodCommand.class, () -> new ChmodCommand(ctx))
        .leaf(ChownCommand.class, () -> new ChownCommand(ctx))
        .leaf(ChgrpCommand.class, () -> new ChgrpCommand(ctx))
        .leaf(CpCommand.class, () -> new CpCommand(ctx))
        .leaf(TouchCommand.class, () -> new TouchCommand(ctx))
        .leaf(LnCommand.class, () -> new LnCommand(ctx))
        .leaf(TestCommand.class, () -> new TestCommand(ctx))
        .leaf(ChecksumCommand.class, () -> new ChecksumCommand(ctx))
        .leaf(LocationCommand.class, () -> new LocationCommand(ctx))
        .leaf(PinCommand.class, () -> new PinCommand(ctx))
        .leaf(UnpinCommand.class, () -> new UnpinCommand(ctx))
        .leaf(SetTtlCommand.class, () -> new SetTtlCommand(ctx))
        .leaf(UnsetTtlCommand.class, () -> new UnsetTtlCommand(ctx))
        .build(new FsCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
