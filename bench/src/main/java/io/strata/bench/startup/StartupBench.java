package io.strata.bench.startup;

import io.strata.bench.Json;
import io.strata.bench.Scripts;
import io.strata.bench.Stats;
import io.strata.bench.Trees;
import io.strata.client.FileSystem;
import io.strata.core.conf.ConfLoader;
import io.strata.core.conf.Configuration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strata bench startup}: the everyday costs, through the real scripts with their default JVM
 * options: wall time of shell commands (median of several) beside a bare JVM start, the time {@code
 * strata-start.sh} takes to bring a master and a worker to serving, and the resident memory of the
 * master, the worker and a FUSE process after a small-files workload read through both the Java
 * client and the mount. The first start after a build records the class archives the later ones map
 * (see docs/operations.md); it is run once before measuring.
 */
@Command(
    name = "startup",
    mixinStandardHelpOptions = true,
    description =
        "Shell command time, master and worker time to ready, and the cluster's memory after a workload.")
public final class StartupBench implements Callable<Integer> {
  private static final long SETTLE_MS = 10_000;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Starts of master and worker (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--shell-runs",
      defaultValue = "10",
      description = "Runs of each shell command (default ${DEFAULT-VALUE}).")
  int shellRuns;

  @Option(
      names = "--files",
      defaultValue = "5000",
      description = "Files of the workload (default ${DEFAULT-VALUE}).")
  int files;

  @Option(
      names = "--size",
      defaultValue = "102400",
      description = "Bytes per workload file (default ${DEFAULT-VALUE}).")
  int size;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Path home = Path.of(System.getProperty("strata.home", ".")).toAbsolutePath();
    Path work = Trees.temporary("strata-bench-startup");
    Scripts scripts = new Scripts(home, work);
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      System.out.println("Warming up: a first start and stop records the class archives...");
      scripts.must("bin/strata-start.sh", "local");
      scripts.must("bin/strata-stop.sh");

      List<Double> master = new ArrayList<>();
      List<Double> worker = new ArrayList<>();
      for (int run = 0; run < runs; run++) {
        master.add(scripts.must("bin/strata-start.sh", "master").seconds());
        worker.add(scripts.must("bin/strata-start.sh", "worker").seconds());
        if (run < runs - 1) {
          scripts.must("bin/strata-stop.sh");
        }
      }
      report(out, "master_ready_s", master);
      report(out, "worker_ready_s", worker);
      // Fresh JVMs compile their hot code for a few seconds; shell commands are timed on a quiet
      // host.
      Thread.sleep(SETTLE_MS);

      List<Double> jvm = new ArrayList<>();
      List<Double> ls = new ArrayList<>();
      List<Double> confGet = new ArrayList<>();
      for (int i = 0; i < shellRuns; i++) {
        jvm.add(Jvm.bareStart());
        ls.add(scripts.must("bin/strata", "fs", "ls", "/").seconds());
        confGet.add(
            scripts.must("bin/strata", "conf", "get", "strata.user.read.timeout").seconds());
      }
      report(out, "jvm_bare_s", jvm);
      report(out, "shell_ls_s", ls);
      report(out, "shell_conf_get_s", confGet);
      out.put("shell_s_median", Math.max(Stats.of(ls).median(), Stats.of(confGet).median()));

      footprint(scripts, work, out);
    } finally {
      scripts.run("bin/strata-stop.sh");
      Trees.delete(work);
    }
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private void footprint(Scripts scripts, Path work, Map<String, Object> out) throws Exception {
    Path ufs = work.resolve("ufs");
    Files.createDirectories(ufs.resolve("small"));
    Random random = new Random(5);
    byte[] data = new byte[size];
    for (int i = 0; i < files; i++) {
      random.nextBytes(data);
      Files.write(ufs.resolve("small/f" + i), data);
    }
    System.out.printf(
        "Workload: %d files of %d bytes, read twice through the Java client...%n", files, size);
    Properties props = new Properties();
    props.setProperty("strata.conf.dir", scripts.confDir().toString());
    props.setProperty("strata.security.secret.file", scripts.secretFile().toString());
    Configuration conf = ConfLoader.load(Map.of(), props);
    byte[] buf = new byte[128 << 10];
    try (FileSystem fs = FileSystem.create(conf)) {
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < files; i++) {
          try (var in = fs.open("/small/f" + i)) {
            while (in.read(buf) > 0) {
              // The bytes do not matter here; the processes' memory afterwards does.
            }
          }
        }
      }
    }
    Path mount = Files.createDirectories(work.resolve("mnt"));
    String fuseName = null;
    if (Files.exists(Path.of("/dev/fuse"))
        && scripts.run("bin/strata-start.sh", "fuse", mount.toString()).code() == 0) {
      fuseName = "fuse" + mount.toString().replace('/', '_');
      System.out.println("... and twice through a FUSE mount");
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < files; i++) {
          try (var in = Files.newInputStream(mount.resolve("small/f" + i))) {
            while (in.read(buf) > 0) {
              // As above.
            }
          }
        }
      }
    } else {
      System.out.println(
          "no FUSE here (/dev/fuse or fusermount missing): the footprint leaves the mount out");
    }
    long memTier = memTierBytes(scripts.workerWebPort(), scripts.metricsAuthorization());
    long total = 0;
    for (String name :
        fuseName == null ? List.of("master", "worker") : List.of("master", "worker", fuseName)) {
      long rss = Scripts.rss(scripts.pid(name));
      String key = (name.startsWith("fuse") ? "fuse" : name) + "_rss_mib";
      out.put(key, rss >> 20);
      System.out.printf(
          Locale.ROOT, "%-7s RSS %d MiB%n", name.startsWith("fuse") ? "fuse" : name, rss >> 20);
      total += rss;
    }
    out.put("mem_tier_used_mib", memTier >> 20);
    out.put("cluster_rss_mib", (total - memTier) >> 20);
    System.out.printf(
        Locale.ROOT,
        "cluster RSS %d MiB, of which the MEM tier holds %d MiB: %d MiB without it%n",
        total >> 20,
        memTier >> 20,
        (total - memTier) >> 20);
  }

  private static long memTierBytes(int webPort, String authorization) throws Exception {
    HttpRequest.Builder get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + webPort + "/metrics"));
    if (authorization != null) {
      get.header("Authorization", authorization);
    }
    String body =
        HttpClient.newHttpClient().send(get.build(), HttpResponse.BodyHandlers.ofString()).body();
    return (long)
        body.lines()
            .filter(
                l -> l.startsWith("strata_worker_cache_used_bytes{") && l.contains("tier=\"MEM\""))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
            .sum();
  }

  private static void report(Map<String, Object> out, String key, List<Double> seconds) {
    Stats s = Stats.of(seconds);
    System.out.printf(Locale.ROOT, "%-17s %s%n", key, s.format("s"));
    out.put(key, s.median());
    out.put(key.replace("_s", "") + "_min_s", s.min());
    out.put(key.replace("_s", "") + "_max_s", s.max());
  }
}
