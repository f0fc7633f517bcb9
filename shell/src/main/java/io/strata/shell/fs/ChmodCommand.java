package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs chmod [-R] MODE PATH...}. */
@Command(
    name = "chmod",
    mixinStandardHelpOptions = true,
    description =
        "Change the permission bits of files and folders, in Strata and in the under-storage.")
final class ChmodCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(
      index = "0",
      paramLabel = "MODE",
      description = "Octal (755) or symbolic as chmod(1) takes it (u+x, go-w, a=r,u+w, +X).")
  String mode;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  @Option(names = "-R", description = "Everything under each folder too.")
  boolean recursive;

  ChmodCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ModeSpec spec = ModeSpec.parse(mode);
    int changed =
        Walk.each(
            ctx.fs(),
            paths,
            recursive,
            (FileInfo f) -> ctx.fs().setMode(f.path(), spec.apply(f.mode(), f.directory())));
    ctx.out().println("changed the mode of " + Walk.count(changed));
  }
}
