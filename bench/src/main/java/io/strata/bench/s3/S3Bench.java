package io.strata.bench.s3;

import io.strata.bench.Json;
import io.strata.bench.Stats;
import io.strata.bench.WorkerSettings;
import io.strata.core.conf.S3Keys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import io.strata.testkit.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench s3}: the S3 endpoint against a plain HTTP server of the bench's serving the
 * same under-storage folder (the raw baseline), in the same run, with the same client (the bench's
 * keep-alive HTTP client, every request signed for both): warm GETs of 4 KiB (latency, one
 * connection), 16 MiB (one connection) and 100 KiB objects (16 connections), PUTs of 16 MiB, and a
 * listing of a folder of 100 k keys page by page (issue 56's aims).
 */
@Command(
    name = "s3",
    mixinStandardHelpOptions = true,
    description =
        "The S3 endpoint against a raw HTTP server of the same files: GET latency and rates, PUT,"
            + " listing.")
public final class S3Bench implements Callable<Integer> {
  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  @Option(names = "--runs", defaultValue = "5", description = "Runs (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--small-requests",
      defaultValue = "2000",
      description = "4 KiB GETs timed per run and server (default ${DEFAULT-VALUE}).")
  int smallRequests;

  @Option(
      names = "--warmup-requests",
      defaultValue = "20000",
      description =
          "4 KiB GETs sent to each server before the runs, so that both run compiled code"
              + " (default ${DEFAULT-VALUE}).")
  int warmupRequests;

  @Option(
      names = "--large-requests",
      defaultValue = "12",
      description = "16 MiB GETs, and PUTs, per run and server (default ${DEFAULT-VALUE}).")
  int largeRequests;

  @Option(
      names = "--connections",
      defaultValue = "16",
      description = "Connections of the 100 KiB GETs (default ${DEFAULT-VALUE}).")
  int connections;

  @Option(
      names = "--medium-requests",
      defaultValue = "3200",
      description =
          "100 KiB GETs per run and server, over all connections (default ${DEFAULT-VALUE}).")
  int mediumRequests;

  @Option(
      names = "--list-keys",
      defaultValue = "100000",
      description =
          "Keys of the listed folder; 0 leaves the listing out (default ${DEFAULT-VALUE}).")
  int listKeys;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long cacheBytes =
        (long) S3Workloads.SMALL_OBJECTS * S3Workloads.SMALL
            + (long) S3Workloads.MEDIUM_OBJECTS * S3Workloads.MEDIUM
            + (long) S3Workloads.LARGE_OBJECTS * S3Workloads.LARGE;
    Map<String, Object> out = new LinkedHashMap<>();
    System.out.println("Starting 1 master, 1 worker and the S3 endpoint; writing the objects...");
    try (ForkedCluster cluster =
        workerSettings
            .applyTo(
                ForkedCluster.builder()
                    .masters(1)
                    .workers(1)
                    .domainSockets()
                    .ssd(((2 * cacheBytes) >> 20) + 512 + "MiB")
                    .property(WorkerKeys.MEM_SIZE, ((cacheBytes >> 20) + 128) + "MiB")
                    .jvmOptions(
                        workerSettings.javaOptions(
                            List.of(
                                "-Xmx512m",
                                "-XX:MaxDirectMemorySize=" + (2 * cacheBytes + (256L << 20))))))
            .start()) {
      Path bucket = Files.createDirectories(cluster.ufsRoot().resolve(S3Workloads.BUCKET));
      S3Workloads.write(bucket.resolve("small"), S3Workloads.SMALL_OBJECTS, S3Workloads.SMALL);
      S3Workloads.write(bucket.resolve("medium"), S3Workloads.MEDIUM_OBJECTS, S3Workloads.MEDIUM);
      S3Workloads.write(bucket.resolve("large"), S3Workloads.LARGE_OBJECTS, S3Workloads.LARGE);
      S3Workloads.writeListing(bucket.resolve("list"), listKeys);
      int endpointPort = FreePorts.next();
      ForkedProcess endpoint = startEndpoint(cluster, endpointPort);
      SigV4Signer signer = signerOf(cluster);
      try (RawFileServer raw = new RawFileServer(cluster.ufsRoot())) {
        Pair ports = new Pair(endpointPort, raw.port());
        warm(ports, signer);
        measure(out, ports, signer);
        if (listKeys > 0) {
          listing(out, endpointPort, signer);
        }
      } catch (IOException e) {
        for (ForkedProcess p : List.of(endpoint, cluster.worker(0))) {
          System.out.println(
              p.name()
                  + "'s warnings:\n"
                  + String.join(
                      "\n",
                      p.outputLines(
                          l ->
                              l.contains(" WARN ")
                                  || l.contains(" ERROR ")
                                  || l.contains("broken off"),
                          30)));
        }
        throw e;
      }
    }
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  /** The endpoint's port and the raw server's. */
  private record Pair(int endpoint, int raw) {}

  /** Starts the endpoint on {@code port} as a process of its own, as the scripts do. */
  private static ForkedProcess startEndpoint(ForkedCluster cluster, int port) throws Exception {
    Map<String, String> conf = new HashMap<>(cluster.clientProperties());
    conf.put(S3Keys.PORT.name(), String.valueOf(port));
    conf.put(S3Keys.CREDENTIALS_FILE.name(), credentials(cluster).toString());
    conf.put(S3Keys.UPLOADS_DIR.name(), cluster.dir().resolve("s3-uploads").toString());
    // The collector bin/strata-process.sh gives the endpoint (young pauses under a millisecond).
    ForkedProcess s3 =
        cluster.process(
            "s3", "io.strata.s3.S3Process", conf, List.of(), List.of("-XX:+UseSerialGC"));
    s3.start();
    s3.awaitReady(Duration.ofSeconds(60));
    return s3;
  }

  private static Path credentials(ForkedCluster cluster) {
    return cluster.dir().resolve("s3-credentials");
  }

  /** A signer with the key pair the endpoint made at its start. */
  private static SigV4Signer signerOf(ForkedCluster cluster) throws IOException {
    String pair =
        Files.readAllLines(credentials(cluster), StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank() && !l.startsWith("#"))
            .findFirst()
            .orElseThrow();
    int colon = pair.indexOf(':');
    return new SigV4Signer(pair.substring(0, colon), pair.substring(colon + 1), "us-east-1");
  }

  /**
   * Every object read twice through the endpoint (cached, whole files kept) and once raw; then
   * {@link #warmupRequests} 4 KiB GETs to each, so that the runs time compiled code.
   */
  private void warm(Pair ports, SigV4Signer signer) throws Exception {
    System.out.println("Warming the cache...");
    try (KeepAliveClient s3 = new KeepAliveClient(ports.endpoint(), signer);
        KeepAliveClient raw = new KeepAliveClient(ports.raw(), signer)) {
      for (int pass = 0; pass < 2; pass++) {
        for (String[] f :
            new String[][] {
              {"small", "" + S3Workloads.SMALL_OBJECTS},
              {"medium", "" + S3Workloads.MEDIUM_OBJECTS},
              {"large", "" + S3Workloads.LARGE_OBJECTS}
            }) {
          for (int i = 0; i < Integer.parseInt(f[1]); i++) {
            s3.get(S3Workloads.path(f[0], i));
            if (pass == 0) {
              raw.get(S3Workloads.path(f[0], i));
            }
          }
        }
      }
      for (int i = 0; i < warmupRequests; i++) {
        s3.get(S3Workloads.path("small", i % S3Workloads.SMALL_OBJECTS));
        raw.get(S3Workloads.path("small", i % S3Workloads.SMALL_OBJECTS));
      }
    }
  }

  private void measure(Map<String, Object> out, Pair ports, SigV4Signer signer) throws Exception {
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    List<Double> rawP50 = new ArrayList<>();
    List<Double> rawP99 = new ArrayList<>();
    List<Double> large = new ArrayList<>();
    List<Double> rawLarge = new ArrayList<>();
    List<Double> medium = new ArrayList<>();
    List<Double> rawMedium = new ArrayList<>();
    List<Double> put = new ArrayList<>();
    List<Double> rawPut = new ArrayList<>();
    S3Workloads w = workloads();
    byte[] body = new byte[S3Workloads.LARGE];
    new Random(3).nextBytes(body);
    for (int run = 0; run < runs; run++) {
      double[] s = w.latencies(ports.endpoint(), signer);
      double[] r = w.latencies(ports.raw(), signer);
      p50.add(s[0]);
      p99.add(s[1]);
      rawP50.add(r[0]);
      rawP99.add(r[1]);
      large.add(w.largeGets(ports.endpoint(), signer));
      rawLarge.add(w.largeGets(ports.raw(), signer));
      medium.add(w.mediumGets(ports.endpoint(), signer));
      rawMedium.add(w.mediumGets(ports.raw(), signer));
      put.add(w.puts(ports.endpoint(), signer, body, "put"));
      rawPut.add(w.puts(ports.raw(), signer, body, "put-raw"));
      System.out.printf(
          Locale.ROOT,
          "run %d: 4 KiB GET p50 %.3f ms (raw %.3f), p99 %.3f ms (raw %.3f); 16 MiB GET %.0f MB/s"
              + " (raw %.0f); 100 KiB GETs x%d %.0f/s (raw %.0f); 16 MiB PUT %.0f MB/s (raw %.0f)%n",
          run + 1,
          s[0],
          r[0],
          s[1],
          r[1],
          large.get(run),
          rawLarge.get(run),
          connections,
          medium.get(run),
          rawMedium.get(run),
          put.get(run),
          rawPut.get(run));
    }
    out.put("runs", runs);
    report(out, "get4k_p50_ms", p50, "ms");
    report(out, "get4k_p99_ms", p99, "ms");
    report(out, "raw_get4k_p50_ms", rawP50, "ms");
    report(out, "raw_get4k_p99_ms", rawP99, "ms");
    report(out, "get16m_mb_s", large, "MB/s");
    report(out, "raw_get16m_mb_s", rawLarge, "MB/s");
    report(out, "get100k_per_s", medium, "/s");
    report(out, "raw_get100k_per_s", rawMedium, "/s");
    report(out, "put16m_mb_s", put, "MB/s");
    report(out, "raw_put16m_mb_s", rawPut, "MB/s");
    report(out, "large_vs_raw", ratios(large, rawLarge), "x");
    report(out, "small_vs_raw", ratios(medium, rawMedium), "x");
    report(out, "put_vs_raw", ratios(put, rawPut), "x");
  }

  /** Seconds to list the folder of {@link #listKeys} keys with a delimiter, in each run. */
  private void listing(Map<String, Object> out, int port, SigV4Signer signer) throws Exception {
    List<Double> seconds = new ArrayList<>();
    for (int run = 0; run < runs; run++) {
      seconds.add(workloads().list(port, signer, listKeys));
      System.out.printf(
          Locale.ROOT, "run %d: listed %d keys in %.2f s%n", run + 1, listKeys, seconds.get(run));
    }
    out.put("list_keys", listKeys);
    report(out, listKeys == 100_000 ? "list_100k_s" : "list_s", seconds, "s");
  }

  private S3Workloads workloads() {
    return new S3Workloads(smallRequests, largeRequests, connections, mediumRequests);
  }

  private static List<Double> ratios(List<Double> a, List<Double> b) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      r.add(a.get(i) / b.get(i));
    }
    return r;
  }

  private static void report(
      Map<String, Object> out, String name, List<Double> values, String unit) {
    Stats s = Stats.of(values);
    System.out.printf(Locale.ROOT, "%-20s %s%n", name, s.format(unit));
    out.put(name, s.median());
    out.put(name + "_min", s.min());
    out.put(name + "_max", s.max());
  }
}
