package io.strata.shell.fs;

import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs invalidate PATH [-R]}. */
@Command(
    name = "invalidate",
    mixinStandardHelpOptions = true,
    description =
        "Make every worker forget the cached metadata of a path (and, with -R, of everything "
            + "under it), so that a file changed in the under-storage is seen at once; cached "
            + "pages of an old version are never served for the new one.")
final class InvalidateCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(paramLabel = "PATH", description = "Strata path.")
  String path;

  @Option(names = "-R", description = "Everything under PATH too.")
  boolean recursive;

  InvalidateCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    int workers = ctx.fs().invalidate(path, recursive);
    ctx.out()
        .println(
            "invalidated "
                + path
                + (recursive ? " and everything under it" : "")
                + " on "
                + workers
                + (workers == 1 ? " worker" : " workers"));
  }
}
