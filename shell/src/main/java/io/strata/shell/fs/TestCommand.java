package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.shell.ShellContext;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs test -e|-d|-f|-s|-z PATH}: answers with the exit code, as test(1) does. */
@Command(
    name = "test",
    mixinStandardHelpOptions = true,
    description = "Exit 0 if the test holds, 1 if not (nothing printed); for scripts.")
final class TestCommand implements Callable<Integer> {
  private final ShellContext ctx;

  static final class Test {
    @Option(names = "-e", description = "PATH exists.")
    boolean exists;

    @Option(names = "-d", description = "PATH is a folder.")
    boolean directory;

    @Option(names = "-f", description = "PATH is a file.")
    boolean file;

    @Option(names = "-s", description = "PATH is a file longer than 0 bytes.")
    boolean nonEmpty;

    @Option(names = "-z", description = "PATH is a file of 0 bytes.")
    boolean empty;
  }

  @ArgGroup(multiplicity = "1")
  Test test;

  @Parameters(paramLabel = "PATH", description = "Strata path.")
  String path;

  TestCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    Optional<FileInfo> found = ctx.fs().findStatus(path);
    if (found.isEmpty()) {
      return 1;
    }
    FileInfo f = found.get();
    boolean holds =
        test.exists
            || (test.directory && f.directory())
            || (test.file && !f.directory())
            || (test.nonEmpty && !f.directory() && f.length() > 0)
            || (test.empty && !f.directory() && f.length() == 0);
    return holds ? 0 : 1;
  }
}
