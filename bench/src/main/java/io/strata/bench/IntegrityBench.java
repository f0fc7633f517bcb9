package io.strata.bench;

import io.strata.client.FileSystem;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import io.strata.testkit.integrity.Chaos;
import io.strata.testkit.integrity.IntegrityChecker;
import io.strata.testkit.integrity.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strata bench integrity}: the randomized integrity checker (the one the integration tests
 * run for a minute) for as long as asked, on a cluster of its own, with processes killed and
 * restarted, pages evicted, keys changed and hostile requests sent meanwhile, reading and writing
 * through the Java client's three transports and, where the host can mount it, a FUSE mount. Exits
 * 1 on any violation; {@code --seed} replays a run.
 */
@Command(
    name = "integrity",
    mixinStandardHelpOptions = true,
    description = "Check that every read returns one whole version of a file, or an error.")
final class IntegrityBench implements Callable<Integer> {
  @Option(
      names = "--minutes",
      defaultValue = "1",
      description = "How long (default ${DEFAULT-VALUE}).")
  double minutes;

  @Option(names = "--seed", description = "The run's seed (default: the time).")
  Long seed;

  @Option(names = "--files", defaultValue = "12", description = "Files (default ${DEFAULT-VALUE}).")
  int files;

  @Option(
      names = "--writers",
      defaultValue = "3",
      description = "Writer threads (default ${DEFAULT-VALUE}).")
  int writers;

  @Option(
      names = "--readers",
      defaultValue = "4",
      description = "Reader threads (default ${DEFAULT-VALUE}).")
  int readers;

  @Option(
      names = "--no-chaos",
      description = "No kills, evictions, key changes or hostile requests.")
  boolean noChaos;

  @Option(
      names = "--no-fuse",
      description = "Read and write through the Java client only, not through a FUSE mount.")
  boolean noFuse;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long s = seed != null ? seed : System.nanoTime();
    Duration run = Duration.ofMillis((long) (minutes * 60_000));
    System.out.printf("Starting 1 master and 2 workers; checking for %s, seed %d...%n", run, s);
    Report report;
    try (ForkedCluster cluster = IntegrityChecker.cluster().start()) {
      List<FileSystem> clients = IntegrityChecker.clientsOf(cluster);
      Path mnt = Files.createDirectories(cluster.dir().resolve("mnt"));
      ForkedProcess fuse = noFuse ? null : mount(cluster, mnt);
      try {
        IntegrityChecker checker =
            new IntegrityChecker(
                clients,
                cluster.ufsRoot(),
                new IntegrityChecker.Options(
                    s, run, files, writers, readers, fuse == null ? null : mnt));
        Chaos chaos =
            noChaos ? null : new Chaos(cluster, clients.get(0), checker.paths(), () -> 1500);
        report = checker.run(chaos);
      } finally {
        if (fuse != null) {
          fuse.stop();
        }
        clients.forEach(FileSystem::close);
      }
    }
    System.out.printf(
        "reads checked %d, writes %d, errors (allowed) %d, chaos steps %d, violations %d%n",
        report.readsChecked(),
        report.writes(),
        report.errors(),
        report.chaosSteps(),
        report.violations());
    report.firstViolations().forEach(v -> System.out.println("violation: " + v));
    if (json) {
      System.out.println(report.json());
    }
    return report.violations() == 0 ? 0 : 1;
  }

  /** The cluster's root mounted at {@code mnt}, or null (said why) where this host cannot. */
  private static ForkedProcess mount(ForkedCluster cluster, Path mnt) throws InterruptedException {
    try {
      return cluster.mountFuse(mnt, "/");
    } catch (IOException | IllegalStateException e) {
      List<String> said = e.getMessage().lines().filter(l -> !l.isBlank()).toList();
      System.out.println(
          "The FUSE mount is not checked, it did not start: "
              + (said.isEmpty() ? e : said.get(said.size() - 1)));
      return null;
    }
  }
}
