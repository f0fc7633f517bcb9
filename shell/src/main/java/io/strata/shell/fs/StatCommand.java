package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import java.io.PrintStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs stat}. */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    description = "Show everything Strata knows of a path, including how much of it is cached.")
final class StatCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "PATH", description = "A Strata path.")
  String path;

  StatCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    FileInfo f = ctx.fs().getStatusWithCacheInfo(path);
    PrintStream out = ctx.out();
    out.println("path:        " + f.path());
    out.println("type:        " + (f.directory() ? "directory" : "file"));
    if (!f.directory()) {
      out.println("length:      " + f.length() + " (" + Formats.bytes(f.length()) + ")");
    }
    out.println("modified:    " + Formats.time(f.mtimeMs()));
    out.printf("mode:        %s (%o)%n", Formats.mode(f.mode(), f.directory()), f.mode());
    out.println("owner:       " + f.owner());
    out.println("group:       " + f.group());
    out.println("ufs:         " + f.ufsPath());
    if (!f.directory()) {
      out.println(
          "cached:      "
              + f.cachedBytes()
              + " bytes ("
              + Formats.percent(f.cachedBytes(), f.length())
              + ")");
      out.println("fingerprint: " + f.fingerprint());
    }
  }
}
