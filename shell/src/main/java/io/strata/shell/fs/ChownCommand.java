package io.strata.shell.fs;

import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs chown [-R] OWNER[:GROUP] PATH...}. */
@Command(
    name = "chown",
    mixinStandardHelpOptions = true,
    description =
        "Change the owner (and group) of files and folders, in Strata and in the under-storage.")
final class ChownCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "OWNER[:GROUP]", description = "User name, group name.")
  String owner;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  @Option(names = "-R", description = "Everything under each folder too.")
  boolean recursive;

  ChownCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    int colon = owner.indexOf(':');
    String user = colon < 0 ? owner : owner.substring(0, colon);
    String group = colon < 0 ? "" : owner.substring(colon + 1);
    if (user.isEmpty() && group.isEmpty()) {
      throw StrataException.invalidArgument(
          "invalid owner '" + owner + "': expected OWNER, OWNER:GROUP or :GROUP");
    }
    int changed =
        Walk.each(ctx.fs(), paths, recursive, f -> ctx.fs().setOwner(f.path(), user, group));
    ctx.out().println("changed the owner of " + Walk.count(changed));
  }
}
