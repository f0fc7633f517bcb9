package io.strata.shell;

import io.strata.core.conf.ConfLoader;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * Runs the everyday read-only commands once, output discarded, so that {@code bin/} can record the
 * classes they load into a class-data-sharing archive (-Xshare:dump) that later shell commands map
 * instead of loading and verifying those classes again: it halves the wall time of a command. Works
 * against whatever cluster the configuration names; without one the commands fail fast and the
 * archive holds less.
 */
public final class ClassArchiveTraining {
  /**
   * Walks (ls -R, du, count) go to a path that does not exist: the UFS may hold millions of files.
   */
  private static final String MISSING = "/.strata-class-archive-training";

  private static final List<String[]> COMMANDS =
      List.of(
          new String[] {"--help"},
          new String[] {"version"},
          new String[] {"fs", "ls", "/"},
          new String[] {"fs", "stat", "/"},
          new String[] {"fs", "ls", "-R", MISSING},
          new String[] {"fs", "du", "-s", MISSING},
          new String[] {"fs", "count", MISSING},
          new String[] {"conf", "get", UserKeys.RPC_TIMEOUT.name()},
          new String[] {"conf", "list"},
          new String[] {"fsadmin", "report"},
          new String[] {"job", "list"});

  private ClassArchiveTraining() {}

  public static void main(String[] args) {
    Configuration conf = ConfLoader.load();
    // A missing cluster must not hold the training up for the default retry budget.
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "0s");
    PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
    try (ShellContext ctx = new ShellContext(discard, discard, () -> conf)) {
      for (String[] command : COMMANDS) {
        StrataShell.run(ctx, command);
      }
    }
    System.exit(0);
  }
}
