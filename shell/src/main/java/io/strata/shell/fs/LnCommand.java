package io.strata.shell.fs;

import io.strata.client.NewEntry;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs ln}: a hard link, or with -s a symbolic one, as ln(1) makes them. */
@Command(
    name = "ln",
    mixinStandardHelpOptions = true,
    description = {
      "Make LINK another name of the file TARGET (a hard link), or with -s a symbolic link whose"
          + " target is TARGET, kept byte for byte (a relative target is relative to LINK's"
          + " folder, as the kernel reads it).",
      "Under-storages without links (S3) refuse with NOT_PERMITTED."
    })
final class LnCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = {"-s", "--symbolic"},
      description = "Make a symbolic link.")
  boolean symbolic;

  @Parameters(index = "0", paramLabel = "TARGET", description = "What the link names.")
  String target;

  @Parameters(index = "1", paramLabel = "LINK", description = "The Strata path of the new link.")
  String link;

  LnCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    if (symbolic) {
      ctx.fs().createSymlink(link, target, NewEntry.DEFAULT);
      ctx.out().println("linked " + link + " -> " + target);
    } else {
      ctx.fs().createHardLink(target, link);
      ctx.out().println("linked " + link + " to " + target);
    }
  }
}
