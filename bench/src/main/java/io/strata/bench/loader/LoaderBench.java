package io.strata.bench.loader;

import io.strata.bench.Json;
import io.strata.bench.ProcessCpu;
import io.strata.bench.Scripts;
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
 * its own cache files, bindfs the folder); then, if asked for, shards streamed front to back, cold
 * and warm. Every sample is checked against a crc32 manifest: one mismatch fails the bench. Needs
 * root (drop_caches), python3 and bindfs.
 *
 * <p>Two shapes, as issue 79 defines the run: 20,000 samples of ~120 KiB and 2,500 of ~1 MiB
 * (figures of the second prefixed {@code large_}); by default 8 reader processes, 3 runs of each
 * point, the mount with the options docs/operations.md recommends for a training data set; {@code
 * --full}, the reference run, adds 1, 4 and 16 processes and takes 5 runs.
 */
@Command(
    name = "loader",
    mixinStandardHelpOptions = true,
    description = "A training data loader through FUSE against the folder itself and bindfs.")
public final class LoaderBench implements Callable<Integer> {
  @Option(
      names = "--files",
      defaultValue = "20000",
      description = "Samples of the small-file shape, one file each (default ${DEFAULT-VALUE}).")
  int files;

  @Option(
      names = "--mean-size",
      defaultValue = "120KiB",
      description = "Mean sample size of the small-file shape (default ${DEFAULT-VALUE}).")
  String meanSize;

  @Option(
      names = "--large-files",
      defaultValue = "2500",
      description =
          "Samples of the large-file shape (default ${DEFAULT-VALUE}); 0 leaves the shape out.")
  int largeFiles;

  @Option(
      names = "--large-mean-size",
      defaultValue = "1MiB",
      description = "Mean sample size of the large-file shape (default ${DEFAULT-VALUE}).")
  String largeMeanSize;

  @Option(names = "--classes", defaultValue = "100", description = "Class folders.")
  int classes;

  @Option(
      names = "--full",
      description =
          "The reference run: 1, 4, 8 and 16 reader processes, 5 runs of each point (default: 8"
              + " processes, 3 runs).")
  boolean full;

  @Option(
      names = "--processes",
      split = ",",
      description = "Reader process counts (default 8; with --full 1,4,8,16).")
  List<Integer> processes;

  @Option(
      names = "--shards",
      defaultValue = "0",
      description = "WebDataset-style shards streamed after the samples (default none).")
  int shards;

  @Option(names = "--shard-size", defaultValue = "256MiB", description = "Bytes per shard.")
  String shardSize;

  @Option(names = "--shard-processes", defaultValue = "8", description = "Readers of the shards.")
  int shardProcesses;

  @Option(
      names = "--drop",
      defaultValue = "PAGES",
      description =
          "What each cold and loaded epoch starts without: PAGES (the default: the page cache, as"
              + " issue 79 defines the epochs; names stay known, as a job's do when its data set"
              + " outgrows memory) or ALL (dentries and inodes too: every name is looked up again,"
              + " as runs before 2026-12-07 night measured).")
  PageCache.Level drop;

  @Option(names = "--runs", description = "Runs of each point (default 3; with --full 5).")
  Integer runs;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Option(
      names = "--mount-options",
      paramLabel = "OPTIONS",
      defaultValue = RECOMMENDED_OPTIONS,
      description =
          "Options of Strata's mount, as -o takes them (default ${DEFAULT-VALUE}: what"
              + " docs/operations.md recommends for a training data set; \"\" for the mount's"
              + " defaults); the JSON names them.")
  String mountOptions;

  /** The mount options docs/operations.md recommends for a training data set. */
  public static final String RECOMMENDED_OPTIONS = "ro,attr_timeout=60,entry_timeout=60";

  /**
   * A data set's shape: its folder under the mount, the prefix of its figures in the JSON (none for
   * the small-file shape, whose names came first), and its samples.
   */
  private record Shape(String folder, String prefix, int files, long meanSize) {}

  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  /** What the runs measured. */
  private final LoaderFigures figures = new LoaderFigures();

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
    try {
      scripts = new Scripts(home, work, workerSettings.siteLines());
      meters = new LoaderMeters(scripts);
      scripts.must("bin/strata-start.sh", "local");
      Path data = Files.createDirectories(work.resolve("dataset"));
      Map<Shape, Path> manifests = new LinkedHashMap<>();
      for (Shape shape : shapes()) {
        manifests.put(
            shape,
            Dataset.files(data.resolve(shape.folder()), shape.files(), shape.meanSize(), classes));
      }
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
        for (Map.Entry<Shape, Path> e : manifests.entrySet()) {
          for (int p : processCounts()) {
            for (int run = 1; run <= runCount(); run++) {
              Sides sides = new Sides(epoch, e.getValue(), e.getKey().folder(), data, bindMnt, p);
              Map<String, Double> m = point(e.getKey(), sides, p);
              System.out.println(
                  e.getKey().folder() + ", processes " + p + ", run " + run + " (samples/s): " + m);
              figures.point(e.getKey().prefix(), p, m);
            }
          }
        }
        if (shardManifest != null) {
          for (int run = 1; run <= runCount(); run++) {
            Sides s = new Sides(epoch, shardManifest, "shards", data, bindMnt, shardProcesses);
            double bindfsCold = s.bindfs(true);
            freshStrata();
            double cold = s.strata(true) / bindfsCold;
            double strataWarm = s.strata(false);
            s.bindfs(false);
            double warm = strataWarm / s.bindfs(false);
            System.out.printf("shards, run %d: cold %.2fx, warm %.2fx bindfs%n", run, cold, warm);
            figures.shards(cold, warm);
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
    Map<String, Object> out =
        figures.summary(
            shapes().stream().map(Shape::prefix).toList(),
            headline(),
            Map.of(
                "mount_options", mountOptions,
                "conf", String.join(",", workerSettings.siteLines()),
                "drop", drop.name(),
                "processes", processCounts().toString(),
                "runs", runCount()));
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  /** The data set's shapes: ~120 KiB samples, and ~1 MiB ones unless left out. */
  private List<Shape> shapes() {
    List<Shape> shapes = new ArrayList<>();
    shapes.add(new Shape("files", "", files, ConfType.BYTES.parse(meanSize)));
    if (largeFiles > 0) {
      shapes.add(new Shape("large", "large_", largeFiles, ConfType.BYTES.parse(largeMeanSize)));
    }
    return shapes;
  }

  private List<Integer> processCounts() {
    if (processes != null) {
      return processes;
    }
    return full ? List.of(1, 4, 8, 16) : List.of(8);
  }

  private int runCount() {
    return runs != null ? runs : full ? 5 : 3;
  }

  /** The process count the headline figures are of: 8, as the issue's aims are, when measured. */
  private int headline() {
    List<Integer> counts = processCounts();
    return counts.contains(8) ? 8 : counts.get(counts.size() - 1);
  }

  /**
   * One point of one shape: a cold epoch of each side (Strata last), a warm one, a loaded one; the
   * samples per second of each, and for the headline process count the figures per open.
   */
  private Map<String, Double> point(Shape shape, Sides files, int p) throws Exception {
    Map<String, Double> m = new LinkedHashMap<>();
    String prefix = shape.prefix();
    boolean headline = p == headline();
    // Cold: each reads the folder's disk once, Strata through its cache; Strata last, so that no
    // later drop of the page cache takes what its cold epoch left there.
    m.put("bindfs_cold", files.bindfs(true));
    m.put("bindfs_cold_index_s", files.indexSeconds);
    m.put("raw_cold", files.raw(true));
    freshStrata();
    long[] coldCpu = {ProcessCpu.millis(fusePid()), ProcessCpu.millis(workerPid())};
    m.put("strata_cold", files.strata(true));
    m.put("strata_cold_index_s", files.indexSeconds);
    if (headline) {
      figures.coldPerFile.add(
          prefix + "fuse_cpu_us", microsPerFile(coldCpu[0], ProcessCpu.millis(fusePid()), shape));
      figures.coldPerFile.add(
          prefix + "worker_cpu_us",
          microsPerFile(coldCpu[1], ProcessCpu.millis(workerPid()), shape));
    }
    // Warm: a second epoch, everything in the page cache (bindfs's after an untimed one).
    double[] before = meters.mount(fuseWebPort);
    m.put("strata_warm", files.strata(false));
    double[] after = meters.mount(fuseWebPort);
    files.bindfs(false);
    m.put("bindfs_warm", files.bindfs(false));
    m.put("raw_warm", files.raw(false));
    if (headline) {
      double opens = Math.max(1, after[1] - before[1]);
      figures.warmPerOpen.add(prefix + "getattr", (after[0] - before[0]) / opens);
      figures.warmPerOpen.add(prefix + "lookup", (after[3] - before[3]) / opens);
    }
    scripts.must("bin/strata", "fs", "distributedLoad", "/data/" + shape.folder());
    PageCache.drop(true, drop);
    double[] beforeLoaded = meters.mount(fuseWebPort);
    Map<String, Double> callsBefore = meters.workerCalls();
    long[] cpuBefore = {ProcessCpu.millis(fusePid()), ProcessCpu.millis(workerPid())};
    m.put("strata_loaded", files.strata(false));
    long[] cpuAfter = {ProcessCpu.millis(fusePid()), ProcessCpu.millis(workerPid())};
    double[] afterLoaded = meters.mount(fuseWebPort);
    Map<String, Double> calls = LoaderMeters.callsBetween(callsBefore, meters.workerCalls());
    System.out.println("worker calls in the loaded epoch: " + calls);
    if (headline) {
      double opens = Math.max(1, afterLoaded[1] - beforeLoaded[1]);
      figures.loadedPerOpen.add(
          prefix + "worker_calls",
          calls.values().stream().mapToDouble(Double::doubleValue).sum() / opens);
      figures.loadedPerOpen.add(prefix + "read", (afterLoaded[2] - beforeLoaded[2]) / opens);
      figures.loadedPerOpen.add(prefix + "lookup", (afterLoaded[3] - beforeLoaded[3]) / opens);
      figures.loadedPerOpen.add(
          prefix + "fuse_cpu_us", microsPerFile(cpuBefore[0], cpuAfter[0], shape));
      figures.loadedPerOpen.add(
          prefix + "worker_cpu_us", microsPerFile(cpuBefore[1], cpuAfter[1], shape));
    }
    // bindfs with an empty page cache, its epoch alone: the index is made once per job.
    PageCache.drop(true, drop);
    m.put("bindfs_loaded", files.bindfs(false));
    return m;
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

    Sides(Epoch e, Path manifest, String folder, Path raw, Path bind, int processes) {
      this.epoch = e;
      this.manifest = manifest;
      this.folder = folder;
      this.raw = raw;
      this.bind = bind;
      this.processes = processes;
      this.stream = folder.equals("shards");
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
      PageCache.drop(cold, drop);
      return read(bind.resolve(folder), cold);
    }

    double raw(boolean cold) throws Exception {
      PageCache.drop(cold, drop);
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
    PageCache.drop(true, drop);
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

  /** CPU microseconds per file of {@code shape} between two {@link ProcessCpu} reads. */
  private static double microsPerFile(long beforeMillis, long afterMillis, Shape shape) {
    return beforeMillis < 0 || afterMillis < 0
        ? Double.NaN
        : (afterMillis - beforeMillis) * 1000.0 / shape.files();
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
