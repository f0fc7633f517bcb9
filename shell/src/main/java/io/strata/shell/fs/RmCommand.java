package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs rm}. */
@Command(
    name = "rm",
    mixinStandardHelpOptions = true,
    description = "Delete files, or directories with -R.")
final class RmCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = {"-R", "-r", "--recursive"},
      description = "Delete directories and everything in them.")
  boolean recursive;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  RmCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      FileInfo info = ctx.fs().getStatus(path);
      if (info.directory() && !recursive) {
        throw new StrataException(
            StatusCode.IS_A_DIRECTORY, path + " is a directory; use rm -R to delete it");
      }
      ctx.fs().delete(path, recursive);
      ctx.out().println("deleted " + path);
    }
  }
}
