package io.strata.bench;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.ConfType;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strata bench cache}: the worker's cache engine, against what the same work costs raw.
 *
 * <ul>
 *   <li>write amplification: bytes the worker process wrote (/proc/PID/io write_bytes: segments,
 *       RocksDB, logs) over bytes of pages admitted, while a dataset of three times the SSD quota
 *       passes through the cache (so eviction runs);
 *   <li>hit throughput: reading a cached dataset through Strata (memory hits, then SSD hits)
 *       against a plain read of the same files in the same run;
 *   <li>metadata capacity and restart time, measured by probes in their own JVMs.
 * </ul>
 */
@Command(
    name = "cache",
    mixinStandardHelpOptions = true,
    description =
        "Write amplification, hit throughput, metadata capacity and restart time of the worker cache.")
final class CacheBench implements Callable<Integer> {
  private static final int FILE = 64 << 20;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Runs of each throughput measurement.")
  int runs;

  @Option(names = "--ssd-quota", defaultValue = "256MiB", description = "SSD quota of the worker.")
  String ssdQuota;

  @Option(names = "--mem", defaultValue = "64MiB", description = "Memory tier of the worker.")
  String mem;

  @Option(
      names = "--meta-entries",
      defaultValue = "5000000",
      description = "Entries for the metadata probe.")
  long metaEntries;

  @Option(
      names = "--restart-pages",
      defaultValue = "1000000",
      description = "Pages for the restart probe.")
  long restartPages;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  private final HttpClient http = HttpClient.newHttpClient();

  @Override
  public Integer call() throws Exception {
    Path work = Trees.temporary("strata-bench-cache");
    long quota = ConfType.BYTES.parse(ssdQuota);
    long memBytes = ConfType.BYTES.parse(mem);
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      try (ForkedCluster cluster =
              ForkedCluster.builder()
                  .masters(1)
                  .workers(1)
                  .dir(work)
                  .property(WorkerKeys.MEM_SIZE, mem)
                  .property(WorkerKeys.PAGE_STORE_DIRS, work.resolve("ssd") + ":" + ssdQuota)
                  .jvmOptions(
                      List.of(
                          "-Xmx512m", "-XX:MaxDirectMemorySize=" + (memBytes * 2 + (256L << 20))))
                  .start();
          FileSystem fs = FileSystem.create(cluster.clientConf())) {
        out.putAll(writeAmplification(cluster, fs, 3 * quota));
        out.putAll(hitThroughput(cluster, fs, "mem", memBytes / 2));
        out.putAll(hitThroughput(cluster, fs, "ssd", quota / 2));
      }
      System.out.println("metadata probe: " + metaEntries + " entries...");
      out.putAll(
          Probe.run(
              "io.strata.bench.probe.MetadataCapacityProbe",
              "2g",
              String.valueOf(metaEntries),
              work.resolve("meta").toString()));
      System.out.println("restart probe: " + restartPages + " pages...");
      out.putAll(
          Probe.run(
              "io.strata.bench.probe.RestartProbe",
              "1g",
              String.valueOf(restartPages),
              "256",
              work.resolve("restart").toString()));
    } finally {
      Trees.delete(work);
    }
    out.forEach((k, v) -> System.out.println("  " + k + " = " + v));
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private Map<String, Object> writeAmplification(ForkedCluster cluster, FileSystem fs, long bytes)
      throws Exception {
    System.out.printf(
        "write amplification: %d MiB through a %s SSD tier...%n", bytes >> 20, ssdQuota);
    List<String> files = dataset(cluster, "waf", bytes);
    long pid = cluster.worker(0).pid();
    long[] ioBefore = io(pid);
    double admittedBefore =
        metric(cluster, "strata_worker_ufs_bytes_read_total{process=\"worker\"}");
    readAll(fs, files);
    long[] ioAfter = io(pid);
    double admitted =
        metric(cluster, "strata_worker_ufs_bytes_read_total{process=\"worker\"}") - admittedBefore;
    double waf = (ioAfter[0] - ioBefore[0]) / admitted;
    double net = (ioAfter[0] - ioBefore[0] - (ioAfter[1] - ioBefore[1])) / admitted;
    System.out.printf(
        Locale.ROOT,
        "  admitted %.0f MiB; worker wrote %.0f MiB (%.0f MiB cancelled): WAF %.4f (net %.4f)%n",
        admitted / (1 << 20),
        (ioAfter[0] - ioBefore[0]) / (double) (1 << 20),
        (ioAfter[1] - ioBefore[1]) / (double) (1 << 20),
        waf,
        net);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("waf", waf);
    m.put("waf_net", net);
    m.put("waf_admitted_bytes", (long) admitted);
    return m;
  }

  private Map<String, Object> hitThroughput(
      ForkedCluster cluster, FileSystem fs, String tier, long bytes) throws Exception {
    System.out.printf("%s hits: %d MiB dataset...%n", tier, bytes >> 20);
    List<String> files = dataset(cluster, tier, bytes);
    readAll(fs, files);
    List<Double> ratios = new ArrayList<>();
    List<Double> strata = new ArrayList<>();
    for (int run = 0; run < runs; run++) {
      long t = System.nanoTime();
      long n = readAll(fs, files);
      double strataMbs = n / ((System.nanoTime() - t) / 1e9) / 1e6;
      t = System.nanoTime();
      long r = readRaw(cluster, files);
      double rawMbs = r / ((System.nanoTime() - t) / 1e9) / 1e6;
      strata.add(strataMbs);
      ratios.add(strataMbs / rawMbs);
      System.out.printf(
          Locale.ROOT,
          "  run %d: strata %.0f MB/s, raw %.0f MB/s, ratio %.3f%n",
          run + 1,
          strataMbs,
          rawMbs,
          strataMbs / rawMbs);
    }
    Stats s = Stats.of(ratios);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(tier + "_hit_vs_raw", s.median());
    m.put(tier + "_hit_vs_raw_min", s.min());
    m.put(tier + "_hit_vs_raw_max", s.max());
    m.put(tier + "_hit_mbs_median", Stats.of(strata).median());
    return m;
  }

  /** Files of random bytes written straight into the UFS folder (not through the worker). */
  private static List<String> dataset(ForkedCluster cluster, String name, long bytes)
      throws IOException {
    Path folder = Files.createDirectories(cluster.ufsRoot().resolve(name));
    byte[] block = new byte[FILE];
    new Random(name.hashCode()).nextBytes(block);
    List<String> files = new ArrayList<>();
    for (long done = 0, i = 0; done < bytes; done += FILE, i++) {
      block[0] = (byte) i;
      Files.write(folder.resolve("f" + i), block);
      files.add("/" + name + "/f" + i);
    }
    return files;
  }

  private static long readAll(FileSystem fs, List<String> files) throws IOException {
    byte[] buf = new byte[1 << 20];
    long total = 0;
    for (String f : files) {
      try (FileInStream in = fs.open(f)) {
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          total += n;
        }
      }
    }
    return total;
  }

  private static long readRaw(ForkedCluster cluster, List<String> files) throws IOException {
    byte[] buf = new byte[1 << 20];
    long total = 0;
    for (String f : files) {
      try (InputStream in = Files.newInputStream(cluster.ufsRoot().resolve(f.substring(1)))) {
        int n;
        while ((n = in.read(buf)) > 0) {
          total += n;
        }
      }
    }
    return total;
  }

  /** write_bytes and cancelled_write_bytes of a process. */
  private static long[] io(long pid) throws IOException {
    long[] v = new long[2];
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/io"))) {
      if (line.startsWith("write_bytes:")) {
        v[0] = Long.parseLong(line.substring(12).trim());
      } else if (line.startsWith("cancelled_write_bytes:")) {
        v[1] = Long.parseLong(line.substring(22).trim());
      }
    }
    return v;
  }

  private double metric(ForkedCluster cluster, String series) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + cluster.workerWebPort(0) + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return body.lines()
        .filter(l -> l.startsWith(series + " "))
        .findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .orElse(0.0);
  }
}
