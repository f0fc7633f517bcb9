package io.strata.bench.read;

import io.strata.bench.Json;
import io.strata.bench.Stats;
import io.strata.bench.Trees;
import io.strata.bench.WorkerSettings;
import io.strata.client.FileSystem;
import io.strata.core.conf.ConfKey;
import io.strata.core.conf.ConfType;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench read}: warm reads through each transport — TCP, the worker's domain socket,
 * short-circuit, and on request TCP with TLS — beside a raw baseline measured in the same run: a
 * plain socket copy over loopback TCP and over a domain socket, and a plain read of the same bytes
 * from local files.
 */
@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    description =
        "Warm sequential and random read speed per transport, against raw sockets and files.")
public final class ReadBench implements Callable<Integer> {
  private static final int FILES = 4;

  @Option(names = "--runs", defaultValue = "3", description = "Runs of every measurement.")
  int runs;

  @Option(
      names = "--warmups",
      defaultValue = "1",
      description =
          "Untimed runs of each measurement first, Strata and the baseline alike: after the"
              + " warm-up passes, the first timed second of a transport still ran at 0.6-0.8 of"
              + " its later runs while the JVMs compiled its path.")
  int warmups;

  @Option(
      names = "--dataset",
      defaultValue = "256MiB",
      description = "Bytes of the dataset (in " + FILES + " files).")
  String dataset;

  @Option(
      names = "--random-millis",
      defaultValue = "1500",
      description = "Length of each random-read measurement.")
  long randomMillis;

  @Option(
      names = "--seq-millis",
      defaultValue = "1000",
      description =
          "Least length of each side of a sequential measurement, taken in two turns of half of it"
              + " (passes over the dataset are repeated).")
  long seqMillis;

  @Option(
      names = "--threads",
      split = ",",
      defaultValue = "1,4",
      description = "Reader threads of each measurement (one measurement per count).")
  List<Integer> threads;

  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  @Option(
      names = "--read-ahead",
      description = "The clients' strata.user.read.ahead.max (default: the key's default).")
  String readAhead;

  @Option(
      names = "--transports",
      split = ",",
      defaultValue = "tcp,uds,shortcircuit",
      description =
          "Transports to measure, of tcp, uds, shortcircuit and tls (TCP to a second cluster"
              + " with TLS on every port, against the same raw TCP copy; with tcp, also"
              + " tls_vs_tcp).")
  List<String> transports;

  @Option(
      names = "--tier",
      defaultValue = "mem",
      description =
          "Where the worker keeps the warm dataset: mem (its "
              + "memory tier, with a copy on SSD) or ssd (no memory tier: pages are sent from the segment files by sendfile).")
  String tier;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Option(
      names = "--each",
      description = "Also print every sequential run's turns (MB/s), to see which one a dip was.")
  boolean each;

  /** A Strata transport and the raw baseline it is measured against. */
  private record Pair(String name, ReadTarget strata, ReadTarget raw) {}

  @Override
  public Integer call() throws Exception {
    long bytes = ConfType.BYTES.parse(dataset);
    long fileSize = bytes / FILES;
    Path work = Trees.temporary("strata-bench-read");
    if (!tier.equals("mem") && !tier.equals("ssd")) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--tier is mem or ssd, not " + tier);
    }
    long mem = tier.equals("mem") ? bytes + (64L << 20) : 0;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("tier", tier);
    boolean tls = transports.contains("tls");
    try (ForkedCluster cluster = startCluster(work.resolve("plain"), bytes, mem, Map.of());
        ForkedCluster secure =
            tls
                ? startCluster(
                    work.resolve("tls"), bytes, mem, SecureCluster.settings(work.resolve("ca")))
                : null) {
      List<Path> files = dataset(cluster.ufsRoot(), fileSize);
      List<String> paths = files.stream().map(p -> "/read/" + p.getFileName()).toList();
      try (FileSystem tcp = client(cluster, false, false);
          FileSystem uds = client(cluster, true, false);
          FileSystem sc = client(cluster, true, true);
          FileSystem overTls = tls ? client(secure, false, false) : null;
          RawSocketServer rawTcp = new RawSocketServer(false, files, null);
          RawSocketServer rawUds = new RawSocketServer(true, files, work.resolve("raw.sock"))) {
        List<Pair> pairs =
            List.of(
                    new Pair("tcp", new StrataTarget("tcp", tcp, paths), rawTcp),
                    new Pair("uds", new StrataTarget("uds", uds, paths), rawUds),
                    new Pair(
                        "shortcircuit",
                        new StrataTarget("shortcircuit", sc, paths),
                        new FileTarget(files)),
                    new Pair("tls", new StrataTarget("tls", overTls, paths), rawTcp))
                .stream()
                .filter(p -> transports.contains(p.name()))
                .toList();
        System.out.printf(
            "warming %d MiB into the worker's %s, and every code path...%n",
            bytes >> 20, tier.equals("mem") ? "memory and SSD" : "SSD");
        if (tls) {
          dataset(secure.ufsRoot(), fileSize);
        }
        for (int i = 0; i < 2; i++) {
          // The second pass reads the pages back from SSD, which verifies their checksums once.
          Workloads.sequential(new StrataTarget("tcp", tcp, paths), 1, FILES);
          if (tls) {
            Workloads.sequential(new StrataTarget("tls", overTls, paths), 1, FILES);
          }
        }
        for (Pair p : pairs) {
          for (ReadTarget t : List.of(p.strata(), p.raw())) {
            for (int i = 0; i < 3; i++) {
              Workloads.sequential(t, 4, FILES);
              Workloads.random(t, 4, FILES, fileSize, 300);
            }
          }
        }
        for (Pair p : pairs) {
          for (int n : threads) {
            out.putAll(sequential(p, n));
          }
        }
        for (Pair p : pairs) {
          for (int n : threads) {
            out.putAll(random(p, n, fileSize));
          }
        }
        if (tls && transports.contains("tcp")) {
          SecureCluster.compare(out);
        }
      }
    } finally {
      Trees.delete(work);
    }
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private ForkedCluster startCluster(Path dir, long bytes, long mem, Map<ConfKey<?>, String> extra)
      throws IOException, InterruptedException {
    ForkedCluster.Builder b =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .dir(dir)
            .domainSockets()
            .ssd((((2 * bytes) >> 20) + 128) + "MiB")
            .property(WorkerKeys.MEM_SIZE, (mem >> 20) + "MiB")
            .jvmOptions(
                workerSettings.javaOptions(
                    List.of("-Xmx512m", "-XX:MaxDirectMemorySize=" + (2 * mem + (256L << 20)))));
    extra.forEach(b::property);
    return workerSettings.applyTo(b).start();
  }

  private FileSystem client(ForkedCluster cluster, boolean domainSocket, boolean shortCircuit) {
    Configuration conf = cluster.clientConf();
    if (readAhead != null) {
      conf.set(UserKeys.READ_AHEAD_MAX, readAhead);
    }
    conf.set(UserKeys.DOMAIN_SOCKET, String.valueOf(domainSocket));
    conf.set(UserKeys.SHORT_CIRCUIT, String.valueOf(shortCircuit));
    return FileSystem.create(conf);
  }

  private Map<String, Object> sequential(Pair p, int threads) throws Exception {
    List<Double> ratios = new ArrayList<>();
    List<Double> strata = new ArrayList<>();
    List<Double> raw = new ArrayList<>();
    for (int run = -warmups; run < runs; run++) {
      // In turns, Strata, the baseline, the baseline, Strata (half the time each): what else the
      // shared host runs meanwhile, and any drift through the run, falls on both sides alike.
      Workloads.Streamed strataPart = Workloads.Streamed.NONE;
      Workloads.Streamed rawPart = Workloads.Streamed.NONE;
      StringBuilder turns = new StringBuilder();
      for (ReadTarget t : List.of(p.strata(), p.raw(), p.raw(), p.strata())) {
        Workloads.Streamed part = Workloads.sequential(t, threads, FILES, seqMillis / 2);
        turns.append(String.format(Locale.ROOT, " %s %.0f", t.name(), part.megabytesPerSecond()));
        if (t == p.strata()) {
          strataPart = strataPart.plus(part);
        } else {
          rawPart = rawPart.plus(part);
        }
      }
      double s = strataPart.megabytesPerSecond();
      double r = rawPart.megabytesPerSecond();
      if (each) {
        System.out.printf(
            Locale.ROOT,
            "%-12s seq %d thread(s), %s: ratio %.3f;%s%n",
            p.name(),
            threads,
            run < 0 ? "warm-up" : "run " + (run + 1),
            s / r,
            turns);
      }
      if (run < 0) {
        continue;
      }
      strata.add(s);
      raw.add(r);
      ratios.add(s / r);
    }
    Stats ratio = Stats.of(ratios);
    System.out.printf(
        Locale.ROOT,
        "%-12s seq 1MiB, %d thread(s): strata %5.0f MB/s, %s %5.0f MB/s (medians); " + "ratio %s%n",
        p.name(),
        threads,
        Stats.of(strata).median(),
        p.raw().name(),
        Stats.of(raw).median(),
        ratio.format("x"));
    String key = p.name() + (threads == 4 ? "" : "_" + threads + "t");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(key + "_vs_raw", ratio.median());
    m.put(key + "_vs_raw_min", ratio.min());
    m.put(key + "_vs_raw_max", ratio.max());
    m.put(key + "_seq_mbs", Stats.of(strata).median());
    m.put(key + "_raw_seq_mbs", Stats.of(raw).median());
    return m;
  }

  private Map<String, Object> random(Pair p, int threads, long fileSize) throws Exception {
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    List<Double> ops = new ArrayList<>();
    List<Double> rawP50 = new ArrayList<>();
    List<Double> rawOps = new ArrayList<>();
    for (int run = -warmups; run < runs; run++) {
      Workloads.Random4k s = Workloads.random(p.strata(), threads, FILES, fileSize, randomMillis);
      Workloads.Random4k r = Workloads.random(p.raw(), threads, FILES, fileSize, randomMillis);
      if (run < 0) {
        continue;
      }
      p50.add(s.p50Ms());
      p99.add(s.p99Ms());
      ops.add(s.opsPerSecond());
      rawP50.add(r.p50Ms());
      rawOps.add(r.opsPerSecond());
    }
    System.out.printf(
        Locale.ROOT,
        "%-12s random 4KiB, %d thread(s): p50 %.3f ms, p99 %.3f ms, %.0f ops/s; "
            + "%s p50 %.3f ms, %.0f ops/s (medians of %d runs)%n",
        p.name(),
        threads,
        Stats.of(p50).median(),
        Stats.of(p99).median(),
        Stats.of(ops).median(),
        p.raw().name(),
        Stats.of(rawP50).median(),
        Stats.of(rawOps).median(),
        runs);
    String key = p.name() + (threads == 1 ? "" : "_" + threads + "t");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(key + "_p50_4k_ms", Stats.of(p50).median());
    m.put(key + "_p99_4k_ms", Stats.of(p99).median());
    m.put(key + "_p99_4k_ms_max", Stats.of(p99).max());
    m.put(key + "_ops_4k", Stats.of(ops).median());
    m.put(key + "_raw_p50_4k_ms", Stats.of(rawP50).median());
    m.put(key + "_raw_ops_4k", Stats.of(rawOps).median());
    return m;
  }

  /** {@value #FILES} files of random bytes written straight into the UFS folder. */
  private static List<Path> dataset(Path ufsRoot, long fileSize) throws IOException {
    Path folder = Files.createDirectories(ufsRoot.resolve("read"));
    byte[] block = new byte[1 << 20];
    Random r = new Random(1);
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < FILES; i++) {
      Path f = folder.resolve("f" + i);
      try (var outStream = Files.newOutputStream(f)) {
        for (long done = 0; done < fileSize; done += block.length) {
          r.nextBytes(block);
          outStream.write(block, 0, (int) Math.min(block.length, fileSize - done));
        }
      }
      files.add(f);
    }
    return files;
  }
}
