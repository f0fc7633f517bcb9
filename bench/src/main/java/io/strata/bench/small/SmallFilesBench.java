package io.strata.bench.small;

import io.strata.bench.Json;
import io.strata.bench.ParallelReads;
import io.strata.bench.Stats;
import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
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
 * {@code strata bench smallfiles}: reading many small files whole through the Java client, cold
 * (the worker's cache freed first) and warm, with 1 and 4 threads, beside a plain read of the same
 * files from the UFS folder in the same run (the page cache holds them: the raw figure is the
 * ceiling); and getStatus latency of entries the worker caches, by gRPC (a client that has not read
 * yet) and over the data plane (one that has), and of entries the client's own cache holds.
 */
@Command(
    name = "smallfiles",
    mixinStandardHelpOptions = true,
    description =
        "Files per second reading small files through Strata against a plain read; getStatus latency.")
public final class SmallFilesBench implements Callable<Integer> {
  private static final int[] THREADS = {1, 4};

  @Option(
      names = "--files",
      defaultValue = "5000",
      description = "Files (default ${DEFAULT-VALUE}).")
  int files;

  @Option(
      names = "--size",
      defaultValue = "102400",
      description = "Bytes per file (default ${DEFAULT-VALUE}).")
  int size;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Runs of every measurement (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--status-calls",
      defaultValue = "20000",
      description = "getStatus calls timed per run.")
  int statusCalls;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long mem = (long) files * size + (256L << 20);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("files", files);
    out.put("file_bytes", size);
    System.out.printf(
        "Starting 1 master and 1 worker; writing %d files of %d bytes...%n", files, size);
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .property(WorkerKeys.MEM_SIZE, (mem >> 20) + "MiB")
            .jvmOptions(List.of("-Xmx512m", "-XX:MaxDirectMemorySize=" + (mem + (256L << 20))))
            .start()) {
      Path folder = Files.createDirectories(cluster.ufsRoot().resolve("small"));
      List<String> paths = write(folder);
      List<Path> files =
          paths.stream().map(p -> folder.resolve(p.substring(p.lastIndexOf('/') + 1))).toList();
      try (FileSystem fs = FileSystem.create(cluster.clientConf());
          FileSystem uncached = FileSystem.create(withoutClientCache(cluster.clientConf()))) {
        for (int threads : THREADS) {
          List<Double> raw = new ArrayList<>();
          List<Double> cold = new ArrayList<>();
          List<Double> warm = new ArrayList<>();
          for (int run = 0; run < runs; run++) {
            raw.add(ParallelReads.files(files, threads));
            fs.free("/small");
            cold.add(ParallelReads.strata(fs, paths, threads));
            warm.add(ParallelReads.strata(fs, paths, threads));
          }
          report(out, "raw" + threads, raw, null);
          report(out, "cold" + threads, cold, raw);
          report(out, "warm" + threads, warm, raw);
        }
        // A client that has not read yet asks for statuses by gRPC; one that reads, over its data
        // connections.
        statusLatency(out, "getstatus_grpc", uncached, paths);
        ParallelReads.strata(uncached, paths.subList(0, 1), 1);
        statusLatency(out, "getstatus", uncached, paths);
        statusLatency(out, "getstatus_client_cache", fs, paths);
      }
    } finally {
      System.out.flush();
    }
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private List<String> write(Path folder) throws Exception {
    Random random = new Random(1);
    byte[] data = new byte[size];
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      random.nextBytes(data);
      Files.write(folder.resolve(String.format("f%06d", i)), data);
      paths.add(String.format("/small/f%06d", i));
    }
    return paths;
  }

  private static Configuration withoutClientCache(Configuration conf) {
    conf.set(UserKeys.METADATA_CACHE_TTL, "0");
    return conf;
  }

  private static void report(
      Map<String, Object> out, String name, List<Double> filesPerS, List<Double> raw) {
    Stats s = Stats.of(filesPerS);
    String line =
        String.format(
            Locale.ROOT,
            "%-6s files/s: min %.0f, median %.0f, max %.0f",
            name,
            s.min(),
            s.median(),
            s.max());
    out.put(name + "_files_per_s", Math.round(s.median()));
    if (raw != null) {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < filesPerS.size(); i++) {
        ratios.add(filesPerS.get(i) / raw.get(i));
      }
      Stats r = Stats.of(ratios);
      line +=
          String.format(
              Locale.ROOT,
              "; vs raw: min %.3f, median %.3f, max %.3f",
              r.min(),
              r.median(),
              r.max());
      out.put(name + "_vs_raw", r.median());
    }
    System.out.println(line);
  }

  private void statusLatency(
      Map<String, Object> out, String name, FileSystem fs, List<String> paths) {
    for (String p : paths) {
      fs.getStatus(p);
    }
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    for (int run = 0; run < runs; run++) {
      long[] nanos = new long[statusCalls];
      for (int i = 0; i < statusCalls; i++) {
        String p = paths.get(i % paths.size());
        long start = System.nanoTime();
        fs.getStatus(p);
        nanos[i] = System.nanoTime() - start;
      }
      java.util.Arrays.sort(nanos);
      p50.add(nanos[statusCalls / 2] / 1e3);
      p99.add(nanos[(int) (statusCalls * 0.99)] / 1e3);
    }
    Stats a = Stats.of(p50);
    Stats b = Stats.of(p99);
    System.out.printf(
        Locale.ROOT,
        "%s µs: p50 median %.1f (min %.1f, max %.1f), p99 median %.1f (min %.1f, max %.1f)%n",
        name,
        a.median(),
        a.min(),
        a.max(),
        b.median(),
        b.min(),
        b.max());
    out.put(name + "_p50_us", a.median());
    out.put(name + "_p99_us", b.median());
  }
}
