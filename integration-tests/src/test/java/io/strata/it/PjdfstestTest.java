package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * pjdfstest, the POSIX conformance suite (vendored under integration-tests/pjdfstest), run as root
 * inside a mount of a local folder. Every check that fails must be listed, with its reason, in
 * pjdfstest-known-failures.txt; any other failure fails this test. Prints the share that passes.
 *
 * <p>The two runs go at once, each with a cluster and a mount of its own: one after the other they
 * took 4 minutes, when each took as long as its longest script, chown/00.t, with 85 s of "sleep 1"
 * between timestamp checks (tests/misc.sh now waits 0.05 s, see pjdfstest/UPSTREAM).
 */
@Execution(ExecutionMode.CONCURRENT)
class PjdfstestTest {
  private static final Path SOURCES = Path.of("pjdfstest").toAbsolutePath();
  private static final Path KNOWN =
      Path.of("src/test/resources/pjdfstest-known-failures.txt").toAbsolutePath();
  private static final Path KNOWN_OWN_LOOP =
      Path.of("src/test/resources/pjdfstest-own-loop-known-failures.txt").toAbsolutePath();
  private static final Path KNOWN_S3 =
      Path.of("src/test/resources/pjdfstest-s3-known-failures.txt").toAbsolutePath();

  /** Scripts run against a mount of S3: what a store without inodes can be asked. */
  private static final List<String> S3_SUBSET =
      List.of(
          "chmod/00.t",
          "chown/00.t",
          "ftruncate/00.t",
          "mkdir/00.t",
          "open/00.t",
          "rmdir/00.t",
          "symlink/00.t",
          "truncate/00.t",
          "unlink/00.t",
          "utimensat/00.t");

  /** Where the suite is built, once for both runs: they share its binary and scripts. */
  @TempDir static Path dir;

  private static Path built;

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void theMountPassesEveryCheckButTheListedOnes() throws Exception {
    // jnr-fuse, the fallback where Strata's own loop cannot mount (not root).
    check(aLocalFolder("engine=jnr"), KNOWN, 0.99);
  }

  /** The same, on a mount served by Strata's own FUSE loop (issue 79; the default as root). */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void theOwnLoop_passesEveryCheckButTheListedOnes() throws Exception {
    check(aLocalFolder("engine=strata"), KNOWN_OWN_LOOP, 0.99);
  }

  /** prove's output for the whole suite inside a mount of a local folder given {@code options}. */
  private String aLocalFolder(String options) throws Exception {
    Path build = buildSuite();
    try (MiniCluster cluster = MiniCluster.builder().start()) {
      Files.createDirectories(cluster.ufsRoot().resolve("pjd"));
      // Four scripts at a time: each names its files at random (namegen), and a script's waits
      // between timestamp checks are filled by the others' work (with "sleep 1": 6 min serial,
      // 2.3 two at a time, 1.8 four at a time).
      return proveIn(cluster, "/pjd", build, List.of("tests"), 4, options);
    }
  }

  /** The documented subset against a mount of an S3 bucket (an S3-compatible server here). */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void aMountOfS3_passesTheSubsetButTheListedChecks() throws Exception {
    Path build = buildSuite();
    int port = io.strata.testkit.FreePorts.next();
    LocalS3 s3 = LocalS3.builder().port(port).mode(LocalS3Mode.IN_MEMORY).build();
    s3.start();
    Map<String, String> options =
        Map.of(
            "s3.endpoint", "http://127.0.0.1:" + port,
            "s3.path.style.access", "true",
            "s3.access.key", "pjd",
            "s3.secret.key", "pjd-secret");
    try (S3Client admin =
            S3Client.builder()
                .endpointOverride(java.net.URI.create("http://127.0.0.1:" + port))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(
                    StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("pjd", "pjd-secret")))
                .build();
        MiniCluster cluster = MiniCluster.builder().start()) {
      admin.createBucket(r -> r.bucket("pjd"));
      try (MasterClient master = new MasterClient(cluster.clientConf())) {
        master.call(
            "mount",
            m ->
                m.mount(
                    MountRequest.newBuilder()
                        .setMount(
                            MountPoint.newBuilder()
                                .setPath("/s3")
                                .setUfsUri("s3://pjd")
                                .putAllOptions(options))
                        .build()));
      }
      List<String> scripts = S3_SUBSET.stream().map(t -> "tests/" + t).toList();
      check(proveIn(cluster, "/s3", build, scripts, 2, ""), KNOWN_S3, 0.97);
    } finally {
      s3.shutdown();
    }
  }

  /**
   * prove's output for {@code scripts} of the suite run inside a mount of {@code root}, {@code
   * jobs} scripts at a time, the mount given {@code options} (as -o takes them).
   */
  private String proveIn(
      MiniCluster cluster, String root, Path build, List<String> scripts, int jobs, String options)
      throws Exception {
    // A mount point of each run's own: the two runs go at once.
    Path mnt = Files.createTempDirectory(dir, "mnt-");
    try (FuseProcess fuse = new FuseProcess(cluster.clientConf(), mnt, root, false, options)) {
      fuse.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> fuse.notReadyReason().isEmpty());
      // --failures: the failed checks' own lines too ("not ok 53 - tried ..., got ..."), so that a
      // failure beyond the listed ones says what it was.
      List<String> cmd =
          new java.util.ArrayList<>(
              List.of("prove", "--failures", "-r", "-j", String.valueOf(jobs)));
      scripts.forEach(t -> cmd.add(build.resolve(t).toString()));
      return run(mnt, Duration.ofMinutes(20), cmd.toArray(String[]::new));
    }
  }

  /**
   * Fails unless at least {@code minPassing} of the checks pass and every failure is listed in
   * {@code knownFile}; prints the figures.
   */
  private static void check(String output, Path knownFile, double minPassing) throws IOException {
    PjdfstestResults results = PjdfstestResults.parse(output);
    Map<String, String> known = knownFailures(knownFile);
    System.out.printf(
        "pjdfstest (%s): %d of %d checks pass (%.1f %%); %d files had a failure%n",
        knownFile.getFileName(),
        results.checks() - results.failedChecks(),
        results.checks(),
        100.0 * (results.checks() - results.failedChecks()) / Math.max(1, results.checks()),
        results.failures().size());
    Map<String, Integer> failedPerFile = new TreeMap<>();
    results.failures().forEach((file, checks) -> failedPerFile.put(file, checks.size()));
    System.out.println("pjdfstest: failed checks per file: " + failedPerFile);
    assertThat(results.checks()).as("checks run\n%s", output).isGreaterThan(0);
    // Issue 24's aim over a local folder: 99 % of the checks pass; over S3, what it was measured
    // at.
    assertThat(results.checks() - results.failedChecks())
        .as("checks passed (at least %.0f %%): %s", minPassing * 100, failedPerFile)
        .isGreaterThanOrEqualTo((int) Math.ceil(results.checks() * minPassing));
    Map<String, Set<Integer>> unexpected = new TreeMap<>();
    results
        .failures()
        .forEach(
            (file, checks) -> {
              Set<Integer> extra = beyond(known.get(file), checks);
              if (!extra.isEmpty()) {
                unexpected.put(file, extra);
              }
            });
    int stray = unexpected.values().stream().mapToInt(Set::size).sum();
    int budget = known.containsKey("*") ? Integer.parseInt(known.get("*").substring(1)) : 0;
    if (!unexpected.isEmpty()) {
      System.out.printf(
          "pjdfstest: %d checks failed beyond the listed ones (at most %d may): %s%n",
          stray, budget, unexpected);
      PjdfstestResults.failedLines(output).stream().limit(100).forEach(System.out::println);
    }
    assertThat(stray)
        .as("failures not in %s: %s", knownFile.getFileName(), unexpected)
        .isLessThanOrEqualTo(budget);
  }

  /**
   * Builds the vendored suite in a copy (autoreconf writes into its folder), once for both runs
   * (the second to ask waits for the first's build); skips where this host cannot mount or build
   * it.
   */
  private static synchronized Path buildSuite() throws Exception {
    FuseHost.assumeMountable();
    for (String tool : List.of("autoreconf", "cc", "make", "prove")) {
      assumeThat(FuseHost.onPath(tool))
          .as("pjdfstest needs %s (apt-get install autoconf automake gcc make perl)", tool)
          .isTrue();
    }
    assumeThat(System.getProperty("user.name")).as("pjdfstest runs as root").isEqualTo("root");
    if (built != null) {
      return built;
    }
    Path build = dir.resolve("pjdfstest");
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path src : (Iterable<Path>) files::iterator) {
        Path dst = build.resolve(SOURCES.relativize(src).toString());
        if (Files.isDirectory(src)) {
          Files.createDirectories(dst);
        } else {
          Files.copy(src, dst, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    run(
        build,
        Duration.ofMinutes(5),
        "sh",
        "-c",
        "autoreconf -ifs && ./configure && make pjdfstest");
    built = build;
    return build;
  }

  /**
   * The failed {@code checks} of a script beyond what {@code allowed} lists: check numbers ({@code
   * 33-34,40}), or {@code ~N} for at most N of them, whichever (checks that race the caches). The
   * line {@code * ~N} allows N failed checks in all beyond the listed ones, for the same reason.
   */
  private static Set<Integer> beyond(String allowed, Set<Integer> checks) {
    if (allowed == null) {
      return checks;
    }
    if (allowed.startsWith("~")) {
      return checks.size() <= Integer.parseInt(allowed.substring(1)) ? Set.of() : checks;
    }
    Set<Integer> extra = new TreeSet<>(checks);
    extra.removeAll(PjdfstestResults.ranges(allowed));
    return extra;
  }

  /** {@code file -> allowed failures} from lines such as {@code chmod/00.t 33-34,40 reason}. */
  private static Map<String, String> knownFailures(Path file) throws IOException {
    Map<String, String> known = new TreeMap<>();
    for (String line : Files.readAllLines(file)) {
      String l = line.strip();
      if (!l.isEmpty() && !l.startsWith("#")) {
        String[] parts = l.split("\\s+", 3);
        known.put(parts[0], parts[1]);
      }
    }
    return known;
  }

  private static String run(Path cwd, Duration limit, String... cmd) throws Exception {
    Path log = Files.createTempFile(cwd.getParent(), "run", ".log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(cwd.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(List.of(cmd) + " did not finish within " + limit);
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    if (!cmd[0].equals("prove")) {
      assertThat(p.exitValue()).as("%s\n%s", List.of(cmd), out).isZero();
    }
    return out;
  }
}
