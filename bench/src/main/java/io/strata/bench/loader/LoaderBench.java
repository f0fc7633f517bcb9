package io.strata.bench.loader;

import io.strata.bench.Json;
import io.strata.bench.ProcessCpu;
import io.strata.bench.Scripts;
import io.strata.bench.Stats;
import io.strata.bench.Trees;
import io.strata.bench.WorkerSettings;
import io.strata.bench.fuse.Mounts;
import io.strata.bench.load.PageCache;
import io.strata.core.conf.ConfType;
import io.strata.core.status.StrataException;
import io.strata.core.util.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench loader}: the job Strata exists for — a training loader reading every sample
 * of a data set through the FUSE mount, epoch after epoch, with several reader processes in a new
 * shuffled order each epoch — beside the same loader on the folder itself and through {@code bindfs
 * --multithreaded -o kernel_cache} over it, in the same run.
 *
 * <p>The cluster is what a new user gets: {@code bin/strata-start.sh local}, the data set's folder
 * mounted live ({@code fs mount /data file://...}), {@code fuse mount} (once: a job's mount lasts
 * across its epochs; the first run pays the fresh processes' warm-up). Each epoch first indexes the
 * data set as torchvision's ImageFolder does (a listing of every class folder, timed apart). Per
 * process count and run: a cold epoch of each side (bindfs and the folder after dropping the page
 * cache; Strata last, with its cache freed, its metadata forgotten and the page cache dropped:
 * metadata and bytes come from the folder through the cache, as bindfs's come from the folder), a
 * warm epoch (the next one: everything in the page cache; bindfs's after an untimed epoch that put
 * it there), and a loaded epoch ({@code fs distributedLoad}, the page cache dropped: Strata reads
 * its own cache files, bindfs the folder); then shards streamed front to back, cold and warm. Every
 * sample is checked against a crc32 manifest: one mismatch fails the bench. Needs root
 * (drop_caches), python3 and bindfs.
 */
@Command(
    name = "loader",
    mixinStandardHelpOptions = true,
    description = "A training data loader through FUSE against the folder itself and bindfs.")
public final class LoaderBench implements Callable<Integer> {
  @Option(names = "--files", defaultValue = "20000", description = "Samples, one file each.")
  int files;

  @Option(names = "--mean-size", defaultValue = "120KiB", description = "Mean sample size.")
  String meanSize;

  @Option(names = "--classes", defaultValue = "100", description = "Class folders.")
  int classes;

  @Option(
      names = "--processes",
      defaultValue = "1,4,8,16",
      split = ",",
      description = "Reader process counts.")
  List<Integer> processes;

  @Option(names = "--shards", defaultValue = "32", description = "Shards; 0 leaves them out.")
  int shards;

  @Option(names = "--shard-size", defaultValue = "256MiB", description = "Bytes per shard.")
  String shardSize;

  @Option(names = "--shard-processes", defaultValue = "8", description = "Readers of the shards.")
  int shardProcesses;

  @Option(names = "--runs", defaultValue = "5", description = "Runs of each point.")
  int runs;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Option(
      names = "--mount-options",
      paramLabel = "OPTIONS",
      defaultValue = "",
      description =
          "Options of Strata's mount, as -o takes them (e.g. engine=strata,ro); the JSON names"
              + " them.")
  String mountOptions;

  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  /** Per open of the headline's warm epochs, and per open (or file) of its loaded epochs. */
  private final PerOpen warmPerOpen = new PerOpen();

  private final PerOpen loadedPerOpen = new PerOpen();

  /** Per file of the headline's cold epochs (their index included). */
  private final PerOpen coldPerFile = new PerOpen();

  private Scripts scripts;
  private LoaderMeters meters;
  private Path strataMnt;
  private int fuseWebPort;
  private long seed;

  @Override
  public Integer call() throws Exception {
    requireTools();
    Path home = Path.of(System.getProperty("strata.home", ".")).toAbsolutePath();
    Path work = Trees.temporary("strata-bench-loader");
    Map<String, List<Double>> ratios = new LinkedHashMap<>();
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    List<Double> getattrPerOpen = new ArrayList<>();
    try {
      scripts = new Scripts(home, work, workerSettings.siteLines());
      meters = new LoaderMeters(scripts);
      scripts.must("bin/strata-start.sh", "local");
      Path data = Files.createDirectories(work.resolve("dataset"));
      Path filesManifest =
          Dataset.files(data.resolve("files"), files, ConfType.BYTES.parse(meanSize), classes);
      Path shardManifest =
          shards > 0
              ? Dataset.shards(data.resolve("shards"), shards, ConfType.BYTES.parse(shardSize))
              : null;
      scripts.must("bin/strata", "fs", "mount", "/data", data.toUri().toString());
      strataMnt = Files.createDirectories(work.resolve("mnt-strata"));
      Path bindMnt = Files.createDirectories(work.resolve("mnt-bindfs"));
      Mounts.bindfs(data, bindMnt);
      Epoch epoch = Epoch.in(work);
      mount();
      try {
        for (int p : processes) {
          for (int run = 1; run <= runs; run++) {
            Map<String, Double> m = new LinkedHashMap<>();
            Sides files = new Sides(epoch, filesManifest, "files", data, bindMnt, p, false);
            // Cold: each reads the folder's disk once, Strata through its cache; Strata last, so
            // that no later drop of the page cache takes what its cold epoch left there.
            m.put("bindfs_cold", files.bindfs(true));
            m.put("bindfs_cold_index_s", files.indexSeconds);
            m.put("raw_cold", files.raw(true));
            freshStrata();
            long[] coldCpu = {ProcessCpu.millis(fusePid()), ProcessCpu.millis(workerPid())};
            m.put("strata_cold", files.strata(true));
            m.put("strata_cold_index_s", files.indexSeconds);
            if (p == headline()) {
              coldPerFile.add(
                  "fuse_cpu_us", microsPerFile(coldCpu[0], ProcessCpu.millis(fusePid())));
              coldPerFile.add(
                  "worker_cpu_us", microsPerFile(coldCpu[1], ProcessCpu.millis(workerPid())));
            }
            // Warm: a second epoch, everything in the page cache (bindfs's after an untimed one).
            double[] before = meters.mount(fuseWebPort);
            m.put("strata_warm", files.strata(false));
            double[] after = meters.mount(fuseWebPort);
            files.bindfs(false);
            m.put("bindfs_warm", files.bindfs(false));
            m.put("raw_warm", files.raw(false));
            if (p == headline()) {
              double opens = Math.max(1, after[1] - before[1]);
              getattrPerOpen.add((after[0] - before[0]) / opens);
              warmPerOpen.add("lookup", (after[3] - before[3]) / opens);
            }
            scripts.must("bin/strata", "fs", "distributedLoad", "/data/files");
            PageCache.drop(true);
            double[] beforeLoaded = meters.mount(fuseWebPort);
            Map<String, Double> callsBefore = meters.workerCalls();
            long[] cpuBefore = {ProcessCpu.millis(fusePid()), ProcessCpu.millis(workerPid())};
            m.put("strata_loaded", files.strata(false));
            long[] cpuAfter = {ProcessCpu.millis(fusePid()), ProcessCpu.millis(workerPid())};
            double[] afterLoaded = meters.mount(fuseWebPort);
            Map<String, Double> calls =
                LoaderMeters.callsBetween(callsBefore, meters.workerCalls());
            System.out.println("worker calls in the loaded epoch: " + calls);
            if (p == headline()) {
              double opens = Math.max(1, afterLoaded[1] - beforeLoaded[1]);
              loadedPerOpen.add(
                  "worker_calls",
                  calls.values().stream().mapToDouble(Double::doubleValue).sum() / opens);
              loadedPerOpen.add("read", (afterLoaded[2] - beforeLoaded[2]) / opens);
              loadedPerOpen.add("lookup", (afterLoaded[3] - beforeLoaded[3]) / opens);
              loadedPerOpen.add("fuse_cpu_us", microsPerFile(cpuBefore[0], cpuAfter[0]));
              loadedPerOpen.add("worker_cpu_us", microsPerFile(cpuBefore[1], cpuAfter[1]));
            }
            // bindfs with an empty page cache, its epoch alone: the index is made once per job.
            PageCache.drop(true);
            m.put("bindfs_loaded", files.bindfs(false));
            System.out.println("processes " + p + ", run " + run + " (samples/s): " + m);
            for (String kind : List.of("cold", "warm", "loaded")) {
              double r = m.get("strata_" + kind) / m.get("bindfs_" + kind);
              ratios.computeIfAbsent(kind + "_vs_bindfs_p" + p, k -> new ArrayList<>()).add(r);
            }
            m.forEach((k, v) -> rates.computeIfAbsent(k + "_p" + p, x -> new ArrayList<>()).add(v));
          }
        }
        if (shardManifest != null) {
          for (int run = 1; run <= runs; run++) {
            Sides s =
                new Sides(epoch, shardManifest, "shards", data, bindMnt, shardProcesses, true);
            double bindfsCold = s.bindfs(true);
            freshStrata();
            double cold = s.strata(true) / bindfsCold;
            double strataWarm = s.strata(false);
            s.bindfs(false);
            double warm = strataWarm / s.bindfs(false);
            System.out.printf("shards, run %d: cold %.2fx, warm %.2fx bindfs%n", run, cold, warm);
            ratios.computeIfAbsent("shards_cold_vs_bindfs", k -> new ArrayList<>()).add(cold);
            ratios.computeIfAbsent("shards_warm_vs_bindfs", k -> new ArrayList<>()).add(warm);
          }
        }
      } finally {
        Mounts.unmount(bindMnt);
        scripts.run("bin/strata", "fuse", "unmount", strataMnt.toString());
      }
    } finally {
      if (scripts != null) {
        scripts.run("bin/strata-stop.sh");
      }
      Trees.delete(work);
    }
    Map<String, Object> out = summarize(ratios, rates, getattrPerOpen);
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  /** The process count the headline figures are of: 8, as the issue's aims are, when measured. */
  private int headline() {
    return processes.contains(8) ? 8 : processes.get(processes.size() - 1);
  }

  private Map<String, Object> summarize(
      Map<String, List<Double>> ratios, Map<String, List<Double>> rates, List<Double> perOpen) {
    Map<String, Object> out = new LinkedHashMap<>();
    int h = headline();
    for (String kind : List.of("cold", "warm", "loaded")) {
      out.put(kind + "_vs_bindfs", Stats.of(ratios.get(kind + "_vs_bindfs_p" + h)).median());
    }
    if (ratios.containsKey("shards_cold_vs_bindfs")) {
      double cold = Stats.of(ratios.get("shards_cold_vs_bindfs")).median();
      double warm = Stats.of(ratios.get("shards_warm_vs_bindfs")).median();
      out.put("shards_vs_bindfs", Math.min(cold, warm));
    }
    out.put("getattr_per_open", Stats.of(perOpen).median());
    out.put("lookup_per_open", warmPerOpen.median("lookup"));
    out.put("read_upcalls_per_loaded_open", loadedPerOpen.median("read"));
    out.put("lookup_per_loaded_open", loadedPerOpen.median("lookup"));
    out.put("fuse_cpu_us_per_cold_file", coldPerFile.median("fuse_cpu_us"));
    out.put("worker_cpu_us_per_cold_file", coldPerFile.median("worker_cpu_us"));
    out.put("worker_calls_per_loaded_open", loadedPerOpen.median("worker_calls"));
    out.put("fuse_cpu_us_per_loaded_file", loadedPerOpen.median("fuse_cpu_us"));
    out.put("worker_cpu_us_per_loaded_file", loadedPerOpen.median("worker_cpu_us"));
    out.put("mount_options", mountOptions);
    out.put("conf", String.join(",", workerSettings.siteLines()));
    double worst = Double.MAX_VALUE;
    for (Map.Entry<String, List<Double>> e : ratios.entrySet()) {
      Stats st = Stats.of(e.getValue());
      System.out.println(e.getKey() + ": " + st.format("x"));
      out.put(e.getKey(), st.median());
      out.put(e.getKey() + "_min", st.min());
      out.put(e.getKey() + "_max", st.max());
      worst = Math.min(worst, st.median());
    }
    out.put("worst_point_vs_bindfs", worst);
    rates.forEach(
        (k, v) -> {
          Stats st = Stats.of(v);
          boolean seconds = k.contains("_index_s");
          System.out.println(k + ": " + st.format(seconds ? "s" : "samples/s"));
          out.put(seconds ? k : k + "_samples_per_s", st.median());
        });
    return out;
  }

  /** One data set read three ways, each epoch in a new order. */
  private final class Sides {
    private final Epoch epoch;
    private final Path manifest;
    private final String folder;
    private final Path raw;
    private final Path bind;
    private final int processes;
    private final boolean stream;

    Sides(Epoch e, Path manifest, String folder, Path raw, Path bind, int processes, boolean s) {
      this.epoch = e;
      this.manifest = manifest;
      this.folder = folder;
      this.raw = raw;
      this.bind = bind;
      this.processes = processes;
      this.stream = s;
    }

    /**
     * An epoch through Strata; {@code first}: the job's first, whose rate counts the making of the
     * data set's index too (Strata's listing looks every file up, bindfs's only names them).
     */
    double strata(boolean first) throws Exception {
      return read(strataMnt.resolve(folder), first);
    }

    /** An epoch through bindfs; {@code cold}: the page cache dropped first, a first epoch. */
    double bindfs(boolean cold) throws Exception {
      PageCache.drop(cold);
      return read(bind.resolve(folder), cold);
    }

    double raw(boolean cold) throws Exception {
      PageCache.drop(cold);
      return read(raw.resolve(folder), cold);
    }

    /** Seconds the last epoch took to index the data set (list its folders). */
    double indexSeconds;

    private double read(Path root, boolean withIndex) throws Exception {
      Epoch.Result r = epoch.run(manifest, root, processes, ++seed, stream);
      indexSeconds = r.indexSeconds();
      double seconds = r.seconds() + (withIndex ? r.indexSeconds() : 0);
      return (stream ? r.bytes() / (double) (1 << 20) : r.samples()) / seconds;
    }
  }

  /**
   * Nothing of the data set left in Strata or the kernel: its pages freed, its metadata forgotten
   * by the workers and (told by them at once) by the mount, the page cache dropped. The mount
   * stays, as a training job's does across its epochs.
   */
  private void freshStrata() throws Exception {
    scripts.must("bin/strata", "fs", "free", "/data");
    scripts.must("bin/strata", "fs", "invalidate", "-R", "/data");
    PageCache.drop(true);
  }

  private void mount() throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of("bin/strata", "fuse", "mount", strataMnt.toString(), "/data"));
    if (!mountOptions.isEmpty()) {
      cmd.addAll(List.of("-o", mountOptions));
    }
    String out = scripts.must(cmd.toArray(String[]::new)).out();
    Matcher m = Pattern.compile("web (\\d+)").matcher(out);
    fuseWebPort = m.find() ? Integer.parseInt(m.group(1)) : 7720;
  }

  private long fusePid() throws IOException {
    return scripts.pid("fuse" + strataMnt.toAbsolutePath().toString().replace('/', '_'));
  }

  private long workerPid() throws IOException {
    return scripts.pid("worker");
  }

  /** CPU microseconds per file of the data set between two {@link ProcessCpu} reads. */
  private double microsPerFile(long beforeMillis, long afterMillis) {
    return beforeMillis < 0 || afterMillis < 0
        ? Double.NaN
        : (afterMillis - beforeMillis) * 1000.0 / files;
  }

  private static void requireTools() {
    if (!PageCache.canDrop()) {
      throw StrataException.invalidArgument(
          "bench loader drops the page cache for its cold epochs: run it as root");
    }
    for (String tool : List.of("python3", "bindfs")) {
      if (!Commands.onPath(tool)) {
        throw StrataException.invalidArgument(
            "bench loader needs " + tool + " (apt-get install " + tool + ")");
      }
    }
  }
}
