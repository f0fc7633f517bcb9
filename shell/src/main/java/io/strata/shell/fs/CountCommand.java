package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs count}. */
@Command(
    name = "count",
    mixinStandardHelpOptions = true,
    description = "Count the files, folders and bytes under a path.")
final class CountCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "PATH", description = "A Strata path.")
  String path;

  CountCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    long[] totals = new long[3];
    Walk.all(
        ctx.fs(),
        ctx.fs().getStatus(path),
        (FileInfo f) -> {
          totals[f.directory() ? 1 : 0]++;
          totals[2] += f.directory() ? 0 : f.length();
        });
    ctx.out().printf("%-12s %-12s %s%n", "Files", "Folders", "Bytes");
    ctx.out().printf("%-12d %-12d %d%n", totals[0], totals[1], totals[2]);
  }
}
