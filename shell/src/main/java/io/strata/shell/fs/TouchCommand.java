package io.strata.shell.fs;

import io.strata.client.WriteOptions;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs touch PATH...}. */
@Command(
    name = "touch",
    mixinStandardHelpOptions = true,
    description =
        "Create empty files, or set the modification time of existing ones to now (where the "
            + "under-storage can: S3 cannot).")
final class TouchCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  TouchCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      if (ctx.fs().exists(path)) {
        ctx.fs().setModificationTime(path, System.currentTimeMillis());
        ctx.out().println("touched " + path);
        continue;
      }
      try {
        ctx.fs().create(path, WriteOptions.DEFAULT).close();
      } catch (StrataException e) {
        if (e.code() != StatusCode.ALREADY_EXISTS) {
          throw e;
        }
        // Created meanwhile by someone else: as touch, leave it be.
      }
      ctx.out().println("created " + path);
    }
  }
}
