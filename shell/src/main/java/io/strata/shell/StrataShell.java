package io.strata.shell;

import io.strata.core.process.Version;
import io.strata.shell.admin.FsAdminCommand;
import io.strata.shell.conf.ConfCommand;
import io.strata.shell.fs.FsCommand;
import io.strata.shell.fuse.FuseCommand;
import io.strata.shell.job.JobCommand;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code strata}: the command line of Strata. */
@Command(
    name = "strata",
    mixinStandardHelpOptions = true,
    versionProvider = StrataShell.VersionProvider.class,
    description = "Strata, a distributed data cache for AI and analytics.",
    subcommandsRepeatable = false)
public final class StrataShell implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    int code;
    try (ShellContext ctx = ShellContext.fromEnvironment()) {
      code = run(ctx, args);
    }
    System.exit(code);
  }

  /** Runs one command line; returns its exit code. */
  public static int run(ShellContext ctx, String... args) {
    CommandLine cmd =
        new CommandTree()
            .group(FsCommand.class, rest -> FsCommand.build(ctx, rest))
            .group(FsAdminCommand.class, rest -> FsAdminCommand.build(ctx, rest))
            .group(ConfCommand.class, rest -> ConfCommand.build(ctx, rest))
            .group(JobCommand.class, rest -> JobCommand.build(ctx, rest))
            .group(FuseCommand.class, rest -> FuseCommand.build(ctx, rest))
            .leaf(FormatCommand.class, () -> new FormatCommand(ctx))
            .leaf(VersionCommand.class, () -> new VersionCommand(ctx))
            .leaf(BenchCommand.class, () -> new BenchCommand(ctx))
            .build(new StrataShell(), List.of(args));
    PrintWriter out =
        new PrintWriter(new OutputStreamWriter(ctx.out(), StandardCharsets.UTF_8), true);
    PrintWriter err =
        new PrintWriter(new OutputStreamWriter(ctx.err(), StandardCharsets.UTF_8), true);
    cmd.setOut(out);
    cmd.setErr(err);
    ShellErrors errors = new ShellErrors();
    cmd.setExecutionExceptionHandler(errors);
    cmd.setParameterExceptionHandler(errors);
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    try {
      return cmd.execute(args);
    } finally {
      out.flush();
      err.flush();
    }
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Prints the build's version for --version. */
  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
        "Strata " + Version.VERSION + VersionCommand.build(System.getProperty("strata.home"))
      };
    }
  }
}
