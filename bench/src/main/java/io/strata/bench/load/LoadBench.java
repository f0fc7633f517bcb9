package io.strata.bench.load;

import io.strata.bench.Json;
import io.strata.bench.Stats;
import io.strata.bench.Trees;
import io.strata.bench.WorkerSettings;
import io.strata.client.FileSystem;
import io.strata.core.conf.ConfType;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.LoadJob;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench load}: distributedLoad throughput against the physical limit of the same
 * work, both cold (page cache dropped first): a plain parallel copy of the same files from the UFS
 * folder onto the cache folder's file system. Also the host write amplification of the load: bytes
 * the worker process wrote (segments, index, logs) over bytes loaded.
 */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description =
        "distributedLoad throughput against a plain parallel copy, cold; write amplification.")
public final class LoadBench implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "5", description = "Runs of each measurement.")
  int runs;

  @Option(names = "--dataset", defaultValue = "4GiB", description = "Bytes of the dataset.")
  String dataset;

  @Option(names = "--files", defaultValue = "64", description = "Files the dataset is split into.")
  int files;

  @Option(
      names = "--copy-threads",
      defaultValue = "4",
      description = "Parallel copies of the raw baseline.")
  int copyThreads;

  @Option(
      names = "--batch-size",
      defaultValue = "0",
      description =
          "Files per batch sent to a worker; 0 (the default): distributedLoad's own default.")
  int batchSize;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  @Override
  public Integer call() throws Exception {
    long bytes = ConfType.BYTES.parse(dataset);
    long fileSize = bytes / files;
    Path work = Trees.temporary("strata-bench-load");
    Map<String, Object> out = new LinkedHashMap<>();
    boolean cold = PageCache.canDrop();
    if (!cold) {
      System.out.println("cannot drop the page cache (needs root): figures are warm, not cold");
    }
    ForkedCluster.Builder builder =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .dir(work)
            .ssd(((bytes * 3 / 2) >> 20) + 256 + "MiB")
            .property(WorkerKeys.MEM_SIZE, "64MiB")
            .jvmOptions(
                workerSettings.javaOptions(List.of("-Xmx512m", "-XX:MaxDirectMemorySize=512m")));
    try (ForkedCluster cluster = workerSettings.applyTo(builder).start();
        FileSystem fs = FileSystem.create(cluster.clientConf());
        MasterClient master = new MasterClient(cluster.clientConf())) {
      List<Path> sources = dataset(cluster.ufsRoot().resolve("load"), files, fileSize);
      List<Double> ratios = new ArrayList<>();
      List<Double> loadRates = new ArrayList<>();
      List<Double> rawRates = new ArrayList<>();
      List<Double> syncedRatios = new ArrayList<>();
      List<Double> syncedRates = new ArrayList<>();
      List<Double> wafs = new ArrayList<>();
      System.out.println("warm-up: one untimed copy and load...");
      copyAll(sources, work.resolve("raw-copy"), false);
      load(master);
      for (int run = 0; run < runs; run++) {
        PageCache.drop(cold);
        double raw = copyAll(sources, work.resolve("raw-copy"), false);
        PageCache.drop(cold);
        double synced = copyAll(sources, work.resolve("raw-copy"), true);
        fs.free("/load");
        PageCache.drop(cold);
        long pid = cluster.worker(0).pid();
        long written = ProcIo.writeBytes(pid);
        LoadJob job = load(master);
        double wrote = ProcIo.writeBytes(pid) - written;
        double seconds = Loads.seconds(job);
        double rate = job.getCounters().getBytesLoaded() / seconds / 1e6;
        double waf = wrote / job.getCounters().getBytesLoaded();
        ratios.add(rate / raw);
        loadRates.add(rate);
        rawRates.add(raw);
        syncedRatios.add(rate / synced);
        syncedRates.add(synced);
        wafs.add(waf);
        System.out.printf(
            Locale.ROOT,
            "run %d: load %.0f MB/s (%d files, %.2f s), raw copy %.0f MB/s, ratio %.3f; "
                + "copy with its bytes on disk %.0f MB/s, ratio %.3f; WAF %.4f%n",
            run + 1,
            rate,
            job.getCounters().getFiles(),
            seconds,
            raw,
            rate / raw,
            synced,
            rate / synced,
            waf);
      }
      ratio(out, "load_vs_raw", "load vs raw copy", ratios);
      out.put("load_mbs", Stats.of(loadRates).median());
      out.put("raw_copy_mbs", Stats.of(rawRates).median());
      ratio(out, "load_vs_raw_synced", "load vs copy with its bytes on disk", syncedRatios);
      out.put("raw_copy_synced_mbs", Stats.of(syncedRates).median());
      out.put("waf", Stats.of(wafs).median());
      out.put("waf_max", Stats.of(wafs).max());
      out.put("files", files);
      out.put("bytes", fileSize * files);
      out.put("cold", cold);
    } finally {
      Trees.delete(work);
    }
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  /**
   * Prints a ratio's min/median/max and puts them under {@code key}, {@code key_min}, {@code
   * key_max}.
   */
  private static void ratio(Map<String, Object> out, String key, String label, List<Double> runs) {
    Stats st = Stats.of(runs);
    System.out.println(label + ": " + st.format("x"));
    out.put(key, st.median());
    out.put(key + "_min", st.min());
    out.put(key + "_max", st.max());
  }

  private LoadJob load(MasterClient master) throws InterruptedException {
    return Loads.run(master, "/load", batchSize);
  }

  /**
   * Copies every file into {@code target} with several threads; MB/s. The copies are deleted after.
   * With {@code synced} the copies' file system is synced before they count as done: a load's pages
   * reach the disk during the load once the kernel's dirty-page limits are crossed, while a copy
   * deleted right after it is timed may have had most of its bytes never written.
   */
  private double copyAll(List<Path> sources, Path target, boolean synced) throws Exception {
    Files.createDirectories(target);
    ExecutorService pool = Executors.newFixedThreadPool(copyThreads);
    long bytes = 0;
    long start = System.nanoTime();
    try {
      List<Future<Long>> copies = new ArrayList<>();
      for (Path p : sources) {
        copies.add(
            pool.submit(
                () -> {
                  Files.copy(
                      p, target.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                  return Files.size(p);
                }));
      }
      for (Future<Long> f : copies) {
        bytes += f.get();
      }
      if (synced) {
        // syncfs(2) of the cache folder's file system: the copies' bytes on the disk.
        new ProcessBuilder("sync", "-f", target.toString()).inheritIO().start().waitFor();
      }
    } finally {
      pool.shutdownNow();
    }
    double rate = bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
    Trees.delete(target);
    return rate;
  }

  private static List<Path> dataset(Path folder, int files, long fileSize) throws IOException {
    Files.createDirectories(folder);
    byte[] block = new byte[1 << 20];
    Random r = new Random(2);
    List<Path> out = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      Path f = folder.resolve(String.format("f%04d", i));
      try (OutputStream o = Files.newOutputStream(f)) {
        for (long done = 0; done < fileSize; done += block.length) {
          r.nextBytes(block);
          o.write(block, 0, (int) Math.min(block.length, fileSize - done));
        }
      }
      out.add(f);
    }
    return out;
  }
}
