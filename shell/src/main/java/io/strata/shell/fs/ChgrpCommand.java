package io.strata.shell.fs;

import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs chgrp [-R] GROUP PATH...}. */
@Command(
    name = "chgrp",
    mixinStandardHelpOptions = true,
    description = "Change the group of files and folders, in Strata and in the under-storage.")
final class ChgrpCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "GROUP", description = "Group name.")
  String group;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  @Option(names = "-R", description = "Everything under each folder too.")
  boolean recursive;

  ChgrpCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    if (group.isEmpty() || group.contains(":")) {
      throw StrataException.invalidArgument("invalid group '" + group + "'");
    }
    int changed =
        Walk.each(ctx.fs(), paths, recursive, f -> ctx.fs().setOwner(f.path(), "", group));
    ctx.out().println("changed the group of " + Walk.count(changed));
  }
}
