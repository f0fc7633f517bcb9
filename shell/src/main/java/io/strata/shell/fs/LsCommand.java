package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.shell.Formats;
import io.strata.shell.HelpOnly;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs ls}. */
@Command(
    name = "ls",
    description =
        "List a directory, or show a file: mode, owner, group, size, modification time, path.")
final class LsCommand implements Runnable {
  private final ShellContext ctx;

  @Mixin HelpOnly help;

  @Option(
      names = {"-R", "--recursive"},
      description = "List subdirectories too.")
  boolean recursive;

  @Option(
      names = {"-h", "--human-readable"},
      description = "Sizes as 1.5MiB rather than bytes.")
  boolean human;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  LsCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Lists first: a directory, the usual case, then costs one call; a file answers NOT_A_DIRECTORY.
   */
  @Override
  public void run() {
    for (String path : paths) {
      List<FileInfo> children;
      try {
        children = ctx.fs().listStatus(path);
      } catch (StrataException e) {
        if (e.code() != StatusCode.NOT_A_DIRECTORY) {
          throw e;
        }
        print(ctx.fs().getStatus(path));
        continue;
      }
      printAll(children);
    }
  }

  private void printAll(List<FileInfo> children) {
    for (FileInfo child : children) {
      print(child);
      if (recursive && child.directory()) {
        printAll(ctx.fs().listStatus(child.path()));
      }
    }
  }

  private void print(FileInfo f) {
    ctx.out()
        .printf(
            "%s  %-8s %-8s %12s  %s  %s%n",
            Formats.mode(f.mode(), f.directory()),
            f.owner(),
            f.group(),
            Formats.size(f.length(), human),
            Formats.time(f.mtimeMs()),
            f.path());
  }
}
