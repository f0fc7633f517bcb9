package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.testkit.ScriptConf;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's path, through the real scripts: start a local cluster, copy a file in, read it twice
 * (the second time from the cache), stop, and leave no process behind. The cluster gets its own
 * conf folder (free loopback ports) and logs folder, as STRATA_CONF_DIR and STRATA_LOGS_DIR allow.
 */
class ScriptsTest {
  private static final Path ROOT = Scripts.ROOT;

  @TempDir Path work;
  private ScriptConf site;
  private Path conf;
  private Path logs;
  private int workerWebPort;
  private Scripts scripts;

  @BeforeEach
  void configure() throws IOException {
    site = ScriptConf.create(ROOT, work, "strata.worker.page.store.mem.size=64MiB");
    conf = site.conf();
    logs = site.logs();
    workerWebPort = site.workerWebPort();
    scripts = new Scripts(site);
  }

  @AfterEach
  void stopAnyway() throws Exception {
    run("bin/strata-stop.sh");
  }

  private Scripts.Result run(String... command) throws Exception {
    return scripts.run(command);
  }

  private Scripts.Result run(Map<String, String> env, String... command) throws Exception {
    return scripts.run(env, command);
  }

  @Test
  void localCluster_servesASecondReadFromTheCache_andStopsCleanly() throws Exception {
    Scripts.Result start = run("bin/strata-start.sh", "local");
    assertThat(start.code()).as(start.out()).isZero();
    assertThat(start.out()).contains("master started", "worker started", "Local cluster ready");
    List<Long> pids = new ArrayList<>(List.of(scripts.pid("master"), scripts.pid("worker")));

    assertThat(run("bin/strata-start.sh", "master").out()).contains("master is already running");

    byte[] data = new byte[3_000_000];
    new Random(5).nextBytes(data);
    Path file = work.resolve("data.bin");
    Files.write(file, data);
    Scripts.Result copy = run("bin/strata", "fs", "copyFromLocal", file.toString(), "/x");
    assertThat(copy.code()).as(copy.out()).isZero();

    String expected = sha256(data);
    assertThat(catSha256()).isEqualTo(expected);
    double ufsAfterFirst = metric("strata_worker_ufs_bytes_read_total{process=\"worker\"}");
    assertThat(catSha256()).isEqualTo(expected);
    // The second read is the cache's (from memory over the socket, or the page files directly).
    assertThat(metric("strata_worker_ufs_bytes_read_total{process=\"worker\"}"))
        .isEqualTo(ufsAfterFirst);
    // Local mode is co-located: the shell reached the worker over its domain socket.
    assertThat(
            metric(
                "strata_worker_data_connections_total{process=\"worker\",transport=\"domain_socket\"}"))
        .isPositive();

    // Issue 54: logs, the processes' output and the journal are this account's only.
    for (String f : List.of("master.log", "worker.log", "master.out", "audit-master.log")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logs.resolve(f))))
          .as(f)
          .isEqualTo("rw-------");
    }
    String journal =
        Files.readAllLines(conf.resolve("strata-site.properties")).stream()
            .filter(l -> l.startsWith("strata.master.journal.folder="))
            .findFirst()
            .orElseThrow()
            .split("=", 2)[1];
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(journal))))
        .isEqualTo("rwx------");

    // Issue 54, item 10: another account of the host is not the cluster (local mode's TOKEN
    // secret is this account's only), and cannot mount root's files.
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
    for (String[] call :
        List.of(
            new String[] {"fs", "ls", "/"},
            new String[] {"fs", "mount", "/evil", "file:///root"})) {
      List<String> asNobody =
          new ArrayList<>(
              List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bin/strata"));
      asNobody.addAll(List.of(call));
      Scripts.Result other = run(asNobody.toArray(String[]::new));
      assertThat(other.code()).as(other.out()).isNotZero();
      assertThat(other.out().strip()).startsWith("strata: UNAUTHENTICATED: no token");
    }
    assertThat(run("bin/strata", "fs", "ls", "/evil").out()).contains("NOT_FOUND");

    Scripts.Result missing = run("bin/strata", "fs", "cat", "/missing");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.out().strip()).isEqualTo("strata: NOT_FOUND: /missing does not exist");

    // The shell logs through its own provider into logs/shell.log, never onto the terminal.
    Scripts.Result debug =
        run(
            Map.of("STRATA_JAVA_OPTS", "-Dio.strata.shell.log.level=DEBUG"),
            "bin/strata",
            "fs",
            "ls",
            "/");
    assertThat(debug.code()).as(debug.out()).isZero();
    assertThat(debug.out()).doesNotContain("DEBUG", "SLF4J");
    assertThat(logs.resolve("shell.log")).content().contains(" DEBUG io.grpc.netty.shaded.");

    Scripts.Result stop = run("bin/strata-stop.sh");
    assertThat(stop.code()).isZero();
    assertThat(stop.out()).contains("stopped worker", "stopped master");
    for (long pid : pids) {
      assertThat(Scripts.running(pid)).as("pid %d", pid).isFalse();
    }
    assertThat(logs.resolve("master.pid")).doesNotExist();
    assertThat(run("bin/strata-stop.sh").out()).contains("no worker running", "no master running");

    // The classes each kind loaded are kept (at stop, or by the shell's training run at start)
    // and mapped by the next start.
    for (String kind : List.of("master", "worker", "shell")) {
      assertThat(ROOT.resolve("lib/strata-" + kind + ".jsa")).isNotEmptyFile();
    }
    assertThat(run("bin/strata-start.sh", "master").code()).isZero();
    assertThat(Files.readString(Path.of("/proc/" + scripts.pid("master") + "/cmdline")))
        .contains("-XX:SharedArchiveFile=" + ROOT.resolve("lib/strata-master.jsa"));
  }

  /**
   * A process that ran while a build replaced lib/'s jars recorded classes of the old jars: its
   * record is dropped at stop (the JVM would refuse it at every start, and being newer than the
   * jars it would never be recorded again). Runs the script functions in a scratch install.
   */
  @Test
  void classesRecordedWhileAJarWasReplaced_areNotKept() throws Exception {
    Path install = scratchInstall();
    String recordAndStop =
        ". bin/strata-process.sh; strata_cds_opts master >/dev/null; sleep 1.1; %s"
            + " echo classes > \"$(strata_archive master).master.tmp\"; strata_adopt_archive master; ls lib";
    ProcessBuilder replaced =
        new ProcessBuilder(
                "bash", "-c", String.format(recordAndStop, "touch lib/strata-core-0.jar;"))
            .directory(install.toFile());
    assertThat(new String(replaced.start().getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .doesNotContain("strata-master.jsa");
    ProcessBuilder unchanged =
        new ProcessBuilder("bash", "-c", String.format(recordAndStop, ""))
            .directory(install.toFile());
    assertThat(
            new String(unchanged.start().getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("strata-master.jsa")
        .doesNotContain(".tmp", ".started");
  }

  /** One record per kind: a second master started while the first records maps nothing yet. */
  @Test
  void whileAProcessOfAKindRecordsItsClasses_anotherOfThatKindDoesNot() throws Exception {
    Path install = scratchInstall();
    String marker = "\"$(strata_archive master).master-0.started\"";
    String script =
        ". bin/strata-process.sh; strata_cds_opts master-0 >/dev/null; echo $$ > "
            + marker
            + "; echo \"[$(strata_cds_opts master-1)]\"; echo 999999999 > "
            + marker
            + "; echo \"[$(strata_cds_opts master-1)]\"";
    Process p =
        new ProcessBuilder("bash", "-c", script)
            .directory(install.toFile())
            .redirectErrorStream(true)
            .start();
    List<String> lines =
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).as("the first recorder lives").isEqualTo("[]");
    assertThat(lines.get(1)).as("the first recorder is gone").contains("-XX:ArchiveClassesAtExit=");
  }

  /** bin/'s process functions and a lib/ of one jar, in a folder of this test's own. */
  private Path scratchInstall() throws IOException {
    Path install = work.resolve("install");
    Files.createDirectories(install.resolve("bin"));
    Files.createDirectories(install.resolve("lib"));
    for (String script : List.of("strata-common.sh", "strata-process.sh")) {
      Files.copy(ROOT.resolve("bin").resolve(script), install.resolve("bin").resolve(script));
    }
    Files.writeString(install.resolve("lib/strata-core-0.jar"), "a jar");
    return install;
  }

  @Test
  void localHaCluster_threeMastersTwoWorkers_servesReadsAndStops() throws Exception {
    // Started from a shell that sourced an earlier cluster's local-cluster.env: its security
    // settings are in the environment, and later shells (the commands below) find them in the file.
    Path secret = work.resolve("earlier-secret");
    Files.writeString(secret, "s".repeat(48));
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    Map<String, String> env =
        Map.of(
            "STRATA_LOCAL_PORT_BASE",
            String.valueOf(freePortBase()),
            "STRATA_LOCAL_DATA_DIR",
            work.resolve("local").toString(),
            "STRATA_SECURITY_MODE",
            "TOKEN",
            "STRATA_SECURITY_SECRET_FILE",
            secret.toString());
    Scripts.Result start =
        run(env, "bin/strata-start.sh", "local", "--masters", "3", "--workers", "2");
    assertThat(start.code()).as(start.out()).isZero();
    assertThat(start.out()).contains("master-0 started", "master-2 started", "worker-1 started");
    List<Long> pids = new ArrayList<>();
    for (String name : List.of("master-0", "master-1", "master-2", "worker-0", "worker-1")) {
      pids.add(scripts.pid(name));
    }
    Scripts.Result report = run("bin/strata", "fsadmin", "report");
    assertThat(report.out()).contains("LEADER", "Workers: 2 live of 2");
    assertThat(report.out().lines().filter(l -> l.contains("FOLLOWER"))).hasSize(2);
    Path file = work.resolve("small.txt");
    Files.writeString(file, "replicated masters");
    assertThat(run("bin/strata", "fs", "copyFromLocal", file.toString(), "/ha.txt").code())
        .isZero();
    assertThat(run("bin/strata", "fs", "cat", "/ha.txt").out()).isEqualTo("replicated masters");

    Scripts.Result stop = run("bin/strata-stop.sh");
    assertThat(stop.out()).contains("stopped worker-0", "stopped master-2");
    for (long pid : pids) {
      assertThat(Scripts.running(pid)).as("pid %d", pid).isFalse();
    }
    assertThat(logs.resolve("local-cluster.env")).doesNotExist();
  }

  /**
   * A base port whose six ports for each of three instances (base + 1000 * i + 0..2, 10..12) are
   * free.
   */
  private static int freePortBase() throws IOException {
    java.util.Random random = new java.util.Random();
    for (int attempt = 0; attempt < 50; attempt++) {
      // Below the kernel's ephemeral range (32768 up): a port free now could otherwise be taken
      // by any process's next outgoing connection before the master binds it (seen once, 37900).
      // This JVM's slice of the range: other test JVMs pick ports at the same time.
      int[] range = io.strata.testkit.FreePorts.range();
      int base = range[0] + random.nextInt((range[1] - range[0] - 2100) / 100) * 100;
      boolean free = true;
      for (int i = 0; i < 3 && free; i++) {
        for (int off : new int[] {0, 1, 2, 10, 11, 12, 13}) {
          try (java.net.ServerSocket s =
              new java.net.ServerSocket(
                  base + 1000 * i + off, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
          } catch (IOException e) {
            free = false;
            break;
          }
        }
      }
      if (free) {
        return base;
      }
    }
    throw new IOException("no free port range found");
  }

  /**
   * Issue 78, critical 2: a master and a worker started one by one with no security configured (as
   * a GPU node's units start them) are TOKEN mode with a secret of this account's: its shell works,
   * another account of the host gets UNAUTHENTICATED and cannot mount root's files.
   */
  @Test
  void masterAndWorkerWithoutAMode_trustNoOtherAccount() throws Exception {
    for (String kind : List.of("master", "worker")) {
      Scripts.Result start = run("bin/strata-start.sh", kind);
      assertThat(start.code()).as(start.out()).isZero();
    }
    Scripts.Result ls = run("bin/strata", "fs", "ls", "/");
    assertThat(ls.code()).as(ls.out()).isZero();
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
    Scripts.Result other =
        run(
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "bin/strata",
            "fs",
            "mount",
            "/evil",
            "file:///root");
    assertThat(other.code()).as(other.out()).isNotZero();
    assertThat(other.out().strip()).startsWith("strata: UNAUTHENTICATED: no token");
    assertThat(run("bin/strata", "fs", "ls", "/evil").out()).contains("NOT_FOUND");
    assertThat(Files.getPosixFilePermissions(logs))
        .as("the logs folder is its owner's alone, as its files are")
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));

    // Stopped one by one: the cluster's environment file goes with the last of them.
    assertThat(run("bin/strata-stop.sh", "worker").code()).isZero();
    assertThat(logs.resolve("local-cluster.env")).exists();
    assertThat(run("bin/strata-stop.sh", "master").code()).isZero();
    assertThat(logs.resolve("local-cluster.env")).doesNotExist();
  }

  /**
   * Issue 56: {@code strata-start.sh all} starts an S3 endpoint beside every worker of the host
   * lists ("localhost" is this host: no ssh), and {@code strata-stop.sh all} stops every one.
   */
  @Test
  void allFromTheHostLists_startsAnS3EndpointBesideEachWorker_andStopsEverything()
      throws Exception {
    Files.writeString(conf.resolve("masters"), "localhost\n");
    Files.writeString(conf.resolve("workers"), "# the worker hosts\nlocalhost\n");
    Scripts.Result start = run("bin/strata-start.sh", "all");
    assertThat(start.code()).as(start.out()).isZero();
    List<Long> pids = List.of(scripts.pid("master"), scripts.pid("worker"), scripts.pid("s3"));

    Scripts.Result stop = run("bin/strata-stop.sh", "all");
    assertThat(stop.code()).as(stop.out()).isZero();
    assertThat(stop.out()).contains("stopped s3", "stopped worker", "stopped master");
    for (long pid : pids) {
      assertThat(Scripts.running(pid)).as("pid %d", pid).isFalse();
    }
  }

  /**
   * Review of issue 78: a master listening off loopback got a secret of this host's alone, which no
   * other host could share; the start stops instead and says what to configure.
   */
  @Test
  void aMasterOffLoopbackWithoutASecret_stopsAndSaysWhatToSet() throws Exception {
    Path local = work.resolve("local");
    Scripts.Result start =
        run(
            Map.of("STRATA_MASTER_BIND_HOST", "0.0.0.0", "STRATA_LOCAL_DATA_DIR", local.toString()),
            "bin/strata-start.sh",
            "master");
    assertThat(start.code()).isEqualTo(1);
    assertThat(start.out().strip())
        .startsWith("strata: the master listens on 0.0.0.0, not loopback:")
        .contains("set strata.security.secret.file");
    assertThat(local.resolve("secret")).doesNotExist();
    assertThat(logs.resolve("master.pid")).doesNotExist();
  }

  @Test
  void badConfiguration_stopsTheStartWithOneClearLine() throws Exception {
    Files.writeString(
        conf.resolve("strata-site.properties"),
        "strata.worker.page.sise=1MiB\n",
        java.nio.file.StandardOpenOption.APPEND);
    Scripts.Result start = run("bin/strata-start.sh", "master");
    assertThat(start.code()).isEqualTo(1);
    assertThat(start.out())
        .contains(
            "master failed to start",
            "unknown configuration key 'strata.worker.page.sise'",
            "did you mean 'strata.worker.page.size'");
    assertThat(logs.resolve("master.pid")).doesNotExist();
  }

  private String catSha256() throws Exception {
    Process p = scripts.start(Map.of(), "bin/strata", "fs", "cat", "/x");
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return sha256(out);
  }

  private double metric(String series) throws Exception {
    HttpRequest.Builder get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + workerWebPort + "/metrics"));
    String authorization = site.metricsAuthorization();
    if (authorization != null) {
      get.header("Authorization", authorization);
    }
    String body =
        HttpClient.newHttpClient().send(get.build(), HttpResponse.BodyHandlers.ofString()).body();
    return body.lines()
        .filter(l -> l.startsWith(series + " "))
        .findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .orElseThrow(() -> new AssertionError(series));
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
