package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs tail}. */
@Command(
    name = "tail",
    mixinStandardHelpOptions = true,
    description = "Print the last bytes of a file.")
final class TailCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = {"-c", "--bytes"},
      defaultValue = "1024",
      description = "How many bytes (default ${DEFAULT-VALUE}).")
  int bytes;

  @Parameters(index = "0", paramLabel = "PATH", description = "A Strata file.")
  String path;

  TailCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    try (FileInStream in = ctx.fs().open(path)) {
      Ranges.print(ctx, in, Math.max(0, in.length() - bytes), bytes);
    }
  }
}
