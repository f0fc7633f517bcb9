package io.strata.bench.hadoop;

import io.strata.bench.Compilers;
import io.strata.bench.HostCpu;
import io.strata.bench.Json;
import io.strata.bench.Runs;
import io.strata.bench.Trees;
import io.strata.bench.WorkerSettings;
import io.strata.bench.load.Loads;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.ConfType;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.MiniHdfs;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench hadoop}: Strata through its Hadoop FileSystem ({@code strata://}), as Spark
 * and Hive read it, against Hadoop's own clients in the same run: warm large files and small files
 * against {@code file://} of the same folder (LocalFileSystem, the ceiling), and cold reads of an
 * HDFS mount against the same files read from HDFS directly (a MiniDFSCluster in this JVM). The
 * cluster is set up as local mode sets one up: a memory and an SSD tier, and a domain socket.
 */
@Command(
    name = "hadoop",
    mixinStandardHelpOptions = true,
    description =
        "strata:// vs file:// (warm large and small files) and vs hdfs:// (cold reads of an HDFS"
            + " mount).")
public final class HadoopBench implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "5", description = "Runs of each measurement.")
  int runs;

  @Option(
      names = "--warmups",
      defaultValue = "8",
      description =
          "Untimed runs of each measurement first, Strata and the baseline alike: the JVMs'"
              + " compilers took a quarter of the CPU in the timed runs after 2.")
  int warmups;

  @Option(
      names = "--max-warmups",
      defaultValue = "40",
      description =
          "Warm-ups of each measurement go on past --warmups while the JVMs' compilers (the"
              + " worker's, the master's, this one's: HDFS's) take over 5%% of a round, up to this"
              + " many.")
  int maxWarmups;

  @Option(names = "--files", defaultValue = "4", description = "Large files.")
  int files;

  @Option(names = "--file-size", defaultValue = "128MiB", description = "Bytes of each.")
  String fileSize;

  @Option(names = "--small", defaultValue = "5000", description = "Small files.")
  int small;

  @Option(names = "--small-size", defaultValue = "16KiB", description = "Bytes of each.")
  String smallSize;

  @Option(names = "--threads", defaultValue = "4", description = "Readers (tasks) at once.")
  int threads;

  @Option(
      names = "--only",
      split = ",",
      description =
          "Run only these measurements, of large, small, cold (default: all); the JSON then holds"
              + " only theirs.")
  Set<String> only;

  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  /** The compilers of every JVM of the run: the cluster's and this one (HDFS, the readers). */
  private Compilers compilers;

  @Override
  public Integer call() throws Exception {
    if (only != null && !Set.of("large", "small", "cold").containsAll(only)) {
      throw new IllegalArgumentException("--only takes large, small and cold, not " + only);
    }
    long size = ConfType.BYTES.parse(fileSize);
    int smallBytes = Math.toIntExact(ConfType.BYTES.parse(smallSize));
    Path work = Trees.temporary("strata-bench-hadoop");
    Map<String, Object> out = new LinkedHashMap<>();
    try (MiniHdfs hdfs = new MiniHdfs(work.resolve("hdfs"));
        ForkedCluster cluster =
            workerSettings
                .applyTo(
                    ForkedCluster.builder()
                        .masters(1)
                        .workers(1)
                        .dir(work.resolve("cluster"))
                        .domainSockets()
                        .ssd(
                            (((files * size * 2 + (long) small * smallBytes) * 2) >> 20)
                                + 256
                                + "MiB")
                        .property(WorkerKeys.MEM_SIZE, System.getProperty("bench.mem", "256MiB"))
                        .jvmOptions(
                            workerSettings.javaOptions(
                                List.of("-Xmx1g", "-XX:MaxDirectMemorySize=1g"))))
                .start();
        MasterClient master = new MasterClient(cluster.clientConf());
        io.strata.client.FileSystem client =
            io.strata.client.FileSystem.create(cluster.clientConf())) {
      System.out.println("writing the dataset into a local folder and HDFS...");
      writeDataset(cluster.ufsRoot(), hdfs.client(), size, smallBytes);
      mount(master, hdfs.uri() + "/cold");
      Configuration conf = new Configuration();
      compilers = Compilers.thisJvmAnd(cluster.master(0).pid(), cluster.worker(0).pid());
      cluster.clientConf().explicitSettings().forEach((k, v) -> conf.set(k, v.value()));
      String masters = String.join(",", cluster.clientConf().get(CommonKeys.MASTER_RPC_ADDRESSES));
      try (FileSystem strata = FileSystem.newInstance(URI.create("strata://" + masters), conf);
          FileSystem local = FileSystem.newInstance(URI.create("file:///"), conf)) {
        if (wanted("large")) {
          Loads.run(master, "/large", 4);
        }
        if (wanted("small")) {
          Loads.run(master, "/small", 100);
        }
        measure(out, cluster, hdfs, client, strata, local);
      }
    } finally {
      Trees.delete(work);
    }
    out.put("files", files);
    out.put("file_bytes", size);
    out.put("small_files", small);
    out.put("small_bytes", smallBytes);
    out.put("threads", threads);
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private void measure(
      Map<String, Object> out,
      ForkedCluster cluster,
      MiniHdfs hdfs,
      io.strata.client.FileSystem client,
      FileSystem strata,
      FileSystem local)
      throws Exception {
    if (wanted("large")) {
      warmLarge(out, cluster, strata, local);
    }
    if (wanted("small")) {
      warmSmall(out, cluster, strata, local);
    }
    if (wanted("cold")) {
      cold(out, hdfs, client, strata, cluster.dir().resolve("kept"));
    }
  }

  private boolean wanted(String measure) {
    return only == null || only.contains(measure);
  }

  private void warmLarge(
      Map<String, Object> out, ForkedCluster cluster, FileSystem strata, FileSystem local)
      throws Exception {
    List<FileStatus> large = HadoopReads.files(strata, new org.apache.hadoop.fs.Path("/large"));
    List<FileStatus> largeLocal =
        HadoopReads.files(
            local, new org.apache.hadoop.fs.Path(cluster.ufsRoot().resolve("large").toUri()));
    List<Double> ratios = new ArrayList<>();
    Runs.Rounds rounds = new Runs.Rounds("warm large files", warmups, maxWarmups, compilers);
    for (int run = rounds.first(); run < runs; run = rounds.next(run)) {
      double s = HadoopReads.streamed(strata, large, threads);
      double l = HadoopReads.streamed(local, largeLocal, threads);
      Runs.keep(ratios, run, s / l);
      print("warm large files", run, s, l, "MB/s", "file://");
    }
    Runs.report(out, "strata_vs_local_large", ratios, "x");
    out.put("large_warmups", rounds.warmups());
  }

  private void warmSmall(
      Map<String, Object> out, ForkedCluster cluster, FileSystem strata, FileSystem local)
      throws Exception {
    List<FileStatus> smalls = HadoopReads.files(strata, new org.apache.hadoop.fs.Path("/small"));
    List<FileStatus> smallsLocal =
        HadoopReads.files(
            local, new org.apache.hadoop.fs.Path(cluster.ufsRoot().resolve("small").toUri()));
    List<Double> perSecond = new ArrayList<>();
    List<Double> smallRatios = new ArrayList<>();
    Runs.Rounds rounds = new Runs.Rounds("warm small files", warmups, maxWarmups, compilers);
    for (int run = rounds.first(); run < runs; run = rounds.next(run)) {
      double s = HadoopReads.opened(strata, smalls, threads);
      double l = HadoopReads.opened(local, smallsLocal, threads);
      Runs.keep(perSecond, run, s);
      Runs.keep(smallRatios, run, s / l);
      print("warm small files", run, s, l, "files/s", "file://");
    }
    Runs.report(out, "small_files_per_s", perSecond, "files/s");
    Runs.report(out, "small_vs_local", smallRatios, "x");
    out.put("small_warmups", rounds.warmups());
  }

  /**
   * Cold reads through the HDFS mount against {@code hdfs://} directly, and, as a bound on what any
   * cache could do here, {@code hdfs://} reads that also keep each MiB in a file of {@code kept}
   * (on the worker's disk) with its crc32c.
   */
  private void cold(
      Map<String, Object> out,
      MiniHdfs hdfs,
      io.strata.client.FileSystem client,
      FileSystem strata,
      Path kept)
      throws Exception {
    FileSystem direct = hdfs.client();
    List<FileStatus> cold = HadoopReads.files(strata, new org.apache.hadoop.fs.Path("/hdfs"));
    List<FileStatus> coldDirect = HadoopReads.files(direct, new org.apache.hadoop.fs.Path("/cold"));
    List<Double> coldRatios = new ArrayList<>();
    List<Double> keptRatios = new ArrayList<>();
    Files.createDirectories(kept);
    List<Double> strataBusy = new ArrayList<>();
    List<Double> rawBusy = new ArrayList<>();
    Runs.Rounds rounds = new Runs.Rounds("cold HDFS reads", warmups, maxWarmups, compilers);
    for (int run = rounds.first(); run < runs; run = rounds.next(run)) {
      client.free("/hdfs");
      double s;
      long[] start = HostCpu.ticks();
      // A client of its own: one that read the pages before may still hold short-circuit leases
      // on them, and read them warm from the worker's files whatever free dropped.
      try (FileSystem fresh = FileSystem.newInstance(strata.getUri(), strata.getConf())) {
        s = HadoopReads.streamed(fresh, cold, threads);
      }
      double sBusy = HostCpu.busySince(start);
      start = HostCpu.ticks();
      double h = HadoopReads.streamed(direct, coldDirect, threads);
      double hBusy = HostCpu.busySince(start);
      double k = HadoopReads.streamedAndKept(direct, coldDirect, threads, kept);
      Runs.keep(coldRatios, run, s / h);
      Runs.keep(keptRatios, run, k / h);
      print("cold HDFS reads", run, s, h, "MB/s", "hdfs://");
      System.out.printf(
          Locale.ROOT,
          "  the least a cache does, hdfs:// read and each MiB written to a file with its crc32c:"
              + " %.0f MB/s, %.3f of hdfs://%n",
          k,
          k / h);
      // Whether a side was bound by the host's CPU (all of it busy) or waited on something.
      System.out.printf(
          Locale.ROOT,
          "  host CPU busy: %.0f %% reading strata://, %.0f %% hdfs://%n",
          sBusy * 100,
          hBusy * 100);
      if (!Double.isNaN(sBusy) && !Double.isNaN(hBusy)) {
        Runs.keep(strataBusy, run, sBusy);
        Runs.keep(rawBusy, run, hBusy);
      }
    }
    Runs.report(out, "hdfs_cold_vs_raw", coldRatios, "x");
    Runs.report(out, "hdfs_kept_vs_raw", keptRatios, "x");
    if (!strataBusy.isEmpty()) {
      Runs.report(out, "cold_host_cpu_busy", strataBusy, "share");
      Runs.report(out, "raw_host_cpu_busy", rawBusy, "share");
    }
    out.put("cold_warmups", rounds.warmups());
  }

  private static void print(
      String what, int run, double strata, double baseline, String unit, String against) {
    System.out.printf(
        Locale.ROOT,
        "%s, %s: strata:// %.0f %s, %s %.0f %s, ratio %.3f%n",
        what,
        Runs.label(run),
        strata,
        unit,
        against,
        baseline,
        unit,
        strata / baseline);
  }

  private void writeDataset(Path ufsRoot, FileSystem hdfs, long size, int smallBytes)
      throws Exception {
    Random r = new Random(26);
    byte[] bytes = new byte[Math.toIntExact(size)];
    Files.createDirectories(ufsRoot.resolve("large"));
    for (int i = 0; i < files; i++) {
      r.nextBytes(bytes);
      Files.write(ufsRoot.resolve("large/f" + i), bytes);
      try (FSDataOutputStream o = hdfs.create(new org.apache.hadoop.fs.Path("/cold/f" + i))) {
        o.write(bytes);
      }
    }
    byte[] content = new byte[smallBytes];
    for (int i = 0; i < small; i++) {
      r.nextBytes(content);
      Path f = ufsRoot.resolve(String.format("small/%02d/s%05d", i % 50, i));
      Files.createDirectories(f.getParent());
      Files.write(f, content);
    }
  }

  private static void mount(MasterClient master, String uri) {
    MountPoint mount = MountPoint.newBuilder().setPath("/hdfs").setUfsUri(uri).build();
    master.call("mount", s -> s.mount(MountRequest.newBuilder().setMount(mount).build()));
  }
}
