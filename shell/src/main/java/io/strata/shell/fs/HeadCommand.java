package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs head}. */
@Command(
    name = "head",
    mixinStandardHelpOptions = true,
    description = "Print the first bytes of a file.")
final class HeadCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = {"-c", "--bytes"},
      defaultValue = "1024",
      description = "How many bytes (default ${DEFAULT-VALUE}).")
  int bytes;

  @Parameters(index = "0", paramLabel = "PATH", description = "A Strata file.")
  String path;

  HeadCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    try (FileInStream in = ctx.fs().open(path)) {
      Ranges.print(ctx, in, 0, bytes);
    }
  }
}
