package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.shell.Formats;
import io.strata.shell.HelpOnly;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs du}. */
@Command(
    name = "du",
    description = "Show the size of files under a path and how much of each is cached.")
final class DuCommand implements Runnable {
  private final ShellContext ctx;

  @Mixin HelpOnly help;

  @Option(
      names = {"-s", "--summarize"},
      description = "Print only the total.")
  boolean summarize;

  @Option(
      names = {"-h", "--human-readable"},
      description = "Sizes as 1.5MiB rather than bytes.")
  boolean human;

  @Parameters(index = "0", paramLabel = "PATH", description = "A Strata path.")
  String path;

  DuCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    long[] totals = new long[2];
    ctx.out().printf("%-14s %-14s %s%n", "Size", "Cached", "Path");
    Walk.all(
        ctx.fs(),
        ctx.fs().getStatus(path),
        (FileInfo f) -> {
          if (f.directory()) {
            return;
          }
          FileInfo withCache = ctx.fs().getStatusWithCacheInfo(f.path());
          totals[0] += withCache.length();
          totals[1] += Math.max(0, withCache.cachedBytes());
          if (!summarize) {
            print(withCache.length(), withCache.cachedBytes(), f.path());
          }
        });
    if (summarize) {
      print(totals[0], totals[1], path);
    }
  }

  private void print(long size, long cached, String p) {
    ctx.out()
        .printf(
            "%-14s %-14s %s%n",
            Formats.size(size, human),
            Formats.size(cached, human) + " (" + Formats.percent(cached, size) + ")",
            p);
  }
}
