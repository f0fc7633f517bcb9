package io.strata.shell;

import io.strata.core.conf.MasterKeys;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strata format}: wipes this host's master journal. */
@Command(
    name = "format",
    mixinStandardHelpOptions = true,
    description =
        "Wipe the master journal in strata.master.journal.folder: the cluster state held there "
            + "(membership, mounts, configuration, jobs) is lost. The master must be stopped.")
final class FormatCommand implements Callable<Integer> {
  /** The file Ratis keeps locked while a server uses its storage. */
  private static final String RATIS_LOCK = "in_use.lock";

  private final ShellContext ctx;

  @Option(
      names = {"-y", "--yes"},
      description = "Do not ask for confirmation.")
  boolean yes;

  FormatCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws IOException {
    Path folder = Path.of(ctx.conf().get(MasterKeys.JOURNAL_FOLDER));
    List<Path> entries = list(folder);
    if (entries.isEmpty()) {
      ctx.out().println("nothing to format: " + folder + " holds no journal");
      return 0;
    }
    refuseIfInUse(folder);
    if (!yes && !confirmed(folder)) {
      ctx.out().println("not formatted");
      return ShellErrors.EXIT_FAILURE;
    }
    for (Path entry : entries) {
      deleteTree(entry);
    }
    ctx.out().println("formatted " + folder);
    return 0;
  }

  private boolean confirmed(Path folder) throws IOException {
    ctx.out()
        .print(
            "Wipe the master journal in "
                + folder
                + "? The cluster state stored there is lost. [y/N] ");
    ctx.out().flush();
    String answer =
        new BufferedReader(new InputStreamReader(ctx.in(), StandardCharsets.UTF_8)).readLine();
    return answer != null && List.of("y", "yes").contains(answer.trim().toLowerCase(Locale.ROOT));
  }

  private static void refuseIfInUse(Path folder) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path lock : files.filter(p -> p.getFileName().toString().equals(RATIS_LOCK)).toList()) {
        try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.WRITE);
            FileLock l = ch.tryLock()) {
          if (l == null) {
            throw inUse(folder);
          }
        } catch (OverlappingFileLockException e) {
          throw inUse(folder);
        }
      }
    }
  }

  private static StrataException inUse(Path folder) {
    return new StrataException(
        StatusCode.FAILED_PRECONDITION, "a master is running on " + folder + "; stop it first");
  }

  private static List<Path> list(Path folder) throws IOException {
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(folder)) {
      return s.toList();
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, root.toString());
    }
  }
}
