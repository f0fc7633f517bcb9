package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Never a wrong byte: the randomized integrity checker against real processes, with workers, the
 * master and the FUSE mounts killed (SIGKILL) and restarted, pages evicted, keys changed live and
 * hostile READs sent, meanwhile; reads through the Java client (TCP, domain socket, short-circuit)
 * and FUSE (where this host can mount it; {@code -Dstrata.integrity.fuse=false} leaves it out): a
 * read-write mount, and a read-only one whose opens of files the workers keep whole pass through to
 * them (fetched whole first when cold), the kernel reading the workers' files itself. Seeded:
 * {@code -Dstrata.integrity.seed=N} replays a run. Then, crash consistency: nothing half written
 * under a final name, no temporary file left by killed writers.
 */
class IntegrityCheckTest {
  /**
   * 40 s in CI, a chaos step half a second after the last one ended (about 9 steps here, each kind
   * of step at least once: kills and restarts of a worker, of a master and of a FUSE mount,
   * evictions, two live changes, hostile reads), where a minute at 1.5 s made about 18 steps of
   * random kinds (issue 55); {@code -Dstrata.integrity.seconds=N} runs it longer.
   */
  private static final Duration RUN =
      Duration.ofSeconds(Long.getLong("strata.integrity.seconds", 40));

  private static final int CHAOS_PAUSE_MILLIS = 500;

  @TempDir Path mnt;
  @TempDir Path readOnlyMnt;

  /**
   * Past the checker's own limit (its run, then {@link IntegrityChecker#GRACE} for a last step and
   * the thread dumps of a stuck one) and the cleanups that follow, on a slow machine: a stuck run
   * fails with what was stuck, not with the tests' 5-minute default.
   */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void readsReturnOneWholeVersionOrAnError_whateverHappensMeanwhile() throws Exception {
    long seed = Long.getLong("strata.integrity.seed", System.nanoTime());
    // Printed first: a run cut short by the tests' time limit can still be replayed.
    System.out.println("integrity seed " + seed + " (-Dstrata.integrity.seed=" + seed + ")");
    // -Dstrata.integrity.keep=true keeps the processes' logs and folders for a post-mortem.
    boolean keep = Boolean.getBoolean("strata.integrity.keep");
    try (ForkedCluster cluster = IntegrityChecker.cluster().keep(keep).start()) {
      if (keep) {
        System.out.println("integrity cluster folder " + cluster.dir());
      }
      List<FileSystem> clients = IntegrityChecker.clientsOf(cluster);
      FileSystem fs = clients.get(0);
      ForkedProcess fuse = mountIfPossible(cluster);
      // The options docs/operations.md gives a training data set's mount: its opens pass through.
      ForkedProcess readOnly =
          fuse == null
              ? null
              : cluster.mountFuse(
                  "fuse-ro", readOnlyMnt, "/", Map.of(), "ro,attr_timeout=60,entry_timeout=60");
      try {
        IntegrityChecker checker =
            new IntegrityChecker(
                clients,
                cluster.ufsRoot(),
                new IntegrityChecker.Options(
                    seed,
                    RUN,
                    12,
                    3,
                    4,
                    fuse == null ? null : mnt,
                    readOnly == null ? null : readOnlyMnt));
        Map<ForkedProcess, Path> mounts = new java.util.LinkedHashMap<>();
        if (fuse != null) {
          mounts.put(fuse, mnt);
        }
        if (readOnly != null) {
          mounts.put(readOnly, readOnlyMnt);
        }
        Chaos chaos = new Chaos(cluster, fs, checker.paths(), () -> CHAOS_PAUSE_MILLIS, mounts);
        Report report = checker.run(chaos);
        System.out.println("integrity seed " + seed + ": " + report.json());
        if (report.violations() > 0 && fuse != null) {
          printMountLines(fuse, report.firstViolations());
          printMountLines(readOnly, report.firstViolations());
        }
        assertThat(report.violations())
            .as("seed %d, violations %s", seed, report.firstViolations())
            .isZero();
        assertThat(report.readsChecked()).as("reads checked").isGreaterThan(100);
        // Every kind of step at least once (Chaos deals them from a shuffled deck).
        assertThat(report.chaosSteps()).as("chaos steps").isGreaterThanOrEqualTo(chaos.kinds());
        if (readOnly != null) {
          assertColdOpenFetchedWhole(cluster, readOnlyMnt);
        }
      } finally {
        if (readOnly != null) {
          readOnly.stop();
        }
        if (fuse != null) {
          fuse.stop();
        }
        clients.forEach(FileSystem::close);
      }
      // Every process is back (chaos restarts what it kills): killed writers left nothing behind.
      // A restarted worker discards them once it has its first mount table, and a writer whose
      // client went away is aborted when its stream ends: both after the checker returns, when
      // the last chaos step or the FUSE stop came just before (CI saw one such file once).
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                try (Stream<Path> files = Files.walk(cluster.ufsRoot())) {
                  List<Path> temporaries =
                      files.filter(p -> p.getFileName().toString().startsWith(".strata-")).toList();
                  assertThat(temporaries).as("temporary files of killed writers").isEmpty();
                }
              });
    }
  }

  /**
   * After the chaos, the read-only mount still passes opens through (passthrough needs root): a
   * cold file opened there is read whole by a worker first. Checked on a file of its own after the
   * run, not on the run's count: a worker the chaos restarted counts again from 0 (CI once saw 0
   * over both workers after both had been restarted).
   */
  private static void assertColdOpenFetchedWhole(ForkedCluster cluster, Path readOnlyMnt)
      throws Exception {
    byte[] cold = new byte[(200 << 10) + 17];
    new Random(cold.length).nextBytes(cold);
    Path inUfs = cluster.ufsRoot().resolve("after-chaos/cold.bin");
    Files.createDirectories(inUfs.getParent());
    Files.write(inUfs, cold);
    double before = wholeFetches(cluster);
    // The last chaos step may have restarted a process moments ago: the first open may wait.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(Files.readAllBytes(readOnlyMnt.resolve("after-chaos/cold.bin")))
                    .isEqualTo(cold));
    assertThat(wholeFetches(cluster) - before)
        .as("versions the workers read whole for the read-only mount's open of a cold file")
        .isPositive();
  }

  /** Versions the workers read whole for passthrough opens, over both (those running now). */
  private static double wholeFetches(ForkedCluster cluster) throws InterruptedException {
    double sum = 0;
    Pattern fetches =
        Pattern.compile("(?m)^strata_worker_whole_fetches_total(?:\\{[^}]*})? (\\S+)$");
    for (int j = 0; j < cluster.workerCount(); j++) {
      try {
        Matcher m = fetches.matcher(Scrape.page(cluster.workerWebPort(j), "/metrics"));
        sum += m.find() ? Double.parseDouble(m.group(1)) : 0;
      } catch (IOException e) {
        // A worker chaos restarted has counted again from 0, or is not up: the other's count.
      }
    }
    return sum;
  }

  private static final Pattern VIOLATED_PATH = Pattern.compile("(/integrity/f\\d+) at ");

  /**
   * The mount's warnings and its lines naming the files read wrong: where a post-mortem of a bad
   * read through the mount starts (a run with {@code io.strata.fuse.KernelView} at DEBUG in
   * log4j2-test.xml also has every version the mount told the kernel and opened).
   */
  private static void printMountLines(ForkedProcess fuse, List<String> violations)
      throws IOException {
    Set<String> paths = new LinkedHashSet<>();
    for (String v : violations) {
      Matcher m = VIOLATED_PATH.matcher(v);
      if (m.find()) {
        paths.add(m.group(1));
      }
    }
    Pattern named =
        Pattern.compile(
            paths.stream().map(Pattern::quote).collect(Collectors.joining("|", "(", ")(?![0-9])")));
    List<String> lines =
        fuse.outputLines(
            l ->
                l.contains(" WARN ")
                    || l.contains(" ERROR ")
                    || (!paths.isEmpty() && named.matcher(l).find()),
            300);
    System.out.println(
        "the FUSE mount's warnings and lines naming " + paths + ":\n" + String.join("\n", lines));
  }

  /** A FUSE mount of the cluster's root at {@link #mnt}, or null if asked to leave it out. */
  private ForkedProcess mountIfPossible(ForkedCluster cluster) throws Exception {
    // -Dstrata.integrity.fuse=false leaves the mount out (to tell a mount problem from another).
    if (!Boolean.parseBoolean(System.getProperty("strata.integrity.fuse", "true"))) {
      System.out.println(
          "integrity: the FUSE mount is not checked (-Dstrata.integrity.fuse=false)");
      return null;
    }
    if (!FuseHost.mountable()) {
      System.out.println(
          "integrity: the FUSE mount is not checked: this host lacks /dev/fuse, fusermount or"
              + " libfuse 2 (apt-get install fuse libfuse2)");
      return null;
    }
    return cluster.mountFuse(mnt, "/");
  }
}
