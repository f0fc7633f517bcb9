package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.shell.ShellContext;
import java.io.IOException;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs cat}. */
@Command(
    name = "cat",
    mixinStandardHelpOptions = true,
    description = "Print files to standard output.")
final class CatCommand implements java.util.concurrent.Callable<Integer> {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata files.")
  List<String> paths;

  CatCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws IOException {
    for (String path : paths) {
      try (FileInStream in = ctx.fs().open(path)) {
        in.transferTo(ctx.out());
      }
    }
    ctx.out().flush();
    return 0;
  }
}
