package io.strata.bench.ufs;

import io.strata.bench.Compilers;
import io.strata.bench.Json;
import io.strata.bench.Runs;
import io.strata.bench.Trees;
import io.strata.bench.WorkerSettings;
import io.strata.bench.load.Loads;
import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.ConfType;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.FreePorts;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata bench ufs}: an S3 mount against the AWS SDK reading the same S3 server in the same
 * run (cold reads, distributedLoad, listings), and against a local-folder mount once warm. The S3
 * server is local-s3 in this JVM unless {@code --endpoint} names another.
 */
@Command(
    name = "ufs",
    mixinStandardHelpOptions = true,
    description =
        "S3 mount vs the AWS SDK on the same server (cold reads, load, listing) and vs a local "
            + "folder (warm reads).")
public final class UfsBench implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "5", description = "Runs of each measurement.")
  int runs;

  @Option(
      names = "--warmups",
      defaultValue = "8",
      description =
          "Untimed runs of each measurement first, Strata and the SDK alike: both JVMs spend the"
              + " first seconds compiling their paths (after 3 rounds, C2 still took a quarter of"
              + " this 2-core host's CPU in the timed runs), and a worker runs for days.")
  int warmups;

  @Option(
      names = "--max-warmups",
      defaultValue = "40",
      description =
          "Warm-ups of the cold reads, the load and the warm reads go on past --warmups while"
              + " the JVMs' compilers (the worker's, the master's, this one's) take over 5%% of a"
              + " round, up to this many.")
  int maxWarmups;

  /** The compilers of every JVM of the run: the cluster's and this one (the SDK, the server). */
  private Compilers compilers;

  @Option(names = "--objects", defaultValue = "4", description = "Large objects.")
  int objects;

  @Option(names = "--object-size", defaultValue = "64MiB", description = "Bytes of each.")
  String objectSize;

  @Option(names = "--small", defaultValue = "1000", description = "Objects loaded.")
  int small;

  @Option(names = "--small-size", defaultValue = "64KiB", description = "Bytes of each.")
  String smallSize;

  @Option(names = "--list", defaultValue = "10000", description = "Objects in the listed folder.")
  int listed;

  @Option(names = "--endpoint", description = "An S3-compatible server (default: local-s3 here).")
  URI endpoint;

  @Option(names = "--access-key", defaultValue = "bench")
  String accessKey;

  @Option(names = "--secret-key", defaultValue = "bench")
  String secretKey;

  @Option(
      names = "--only",
      split = ",",
      description =
          "Run only these measurements, of cold, load, warm, list (default: all); the JSON then"
              + " holds only theirs.")
  Set<String> only;

  @Mixin WorkerSettings workerSettings = new WorkerSettings();

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  private long pageSize;

  @Override
  public Integer call() throws Exception {
    if (only != null && !Set.of("cold", "load", "warm", "list").containsAll(only)) {
      throw new IllegalArgumentException("--only takes cold, load, warm and list, not " + only);
    }
    long size = ConfType.BYTES.parse(objectSize);
    int smallBytes = Math.toIntExact(ConfType.BYTES.parse(smallSize));
    Path work = Trees.temporary("strata-bench-ufs");
    QuietS3Server local = null;
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      URI store = endpoint;
      if (store == null) {
        int port = FreePorts.next();
        local = new QuietS3Server(port, work.resolve("s3"));
        store = URI.create("http://127.0.0.1:" + port);
      }
      String bucket = "strata-bench-" + Long.toHexString(System.nanoTime());
      try (RawS3 raw = new RawS3(store, accessKey, secretKey, bucket);
          ForkedCluster cluster =
              workerSettings
                  .applyTo(
                      ForkedCluster.builder()
                          .masters(1)
                          .workers(1)
                          .dir(work.resolve("cluster"))
                          .ssd(
                              (((objects * size + (long) small * smallBytes) * 2) >> 20)
                                  + 256
                                  + "MiB")
                          .property(WorkerKeys.MEM_SIZE, "256MiB")
                          .jvmOptions(
                              workerSettings.javaOptions(
                                  List.of("-Xmx1g", "-XX:MaxDirectMemorySize=1g"))))
                  .start();
          FileSystem fs = FileSystem.create(cluster.clientConf());
          MasterClient master = new MasterClient(cluster.clientConf())) {
        pageSize = ConfType.BYTES.parse(WorkerKeys.PAGE_SIZE.defaultValue());
        compilers = Compilers.thisJvmAnd(cluster.master(0).pid(), cluster.worker(0).pid());
        System.out.println("writing the dataset into " + store + " and a local folder...");
        raw.createBucket();
        writeDataset(raw, cluster.ufsRoot(), size, smallBytes);
        mount(master, store, bucket);
        measure(out, raw, fs, master, size, smallBytes);
      }
    } finally {
      if (local != null) {
        local.close();
      }
      Trees.delete(work);
    }
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private void measure(
      Map<String, Object> out,
      RawS3 raw,
      FileSystem fs,
      MasterClient master,
      long size,
      int smallBytes)
      throws Exception {
    if (wanted("cold")) {
      coldReads(out, raw, fs, size);
    }
    if (wanted("load")) {
      load(out, raw, fs, master, smallBytes);
    }
    if (wanted("warm")) {
      warmReads(out, master, fs);
    }
    if (wanted("list")) {
      listing(out, raw, fs);
    }
    out.put("objects", objects);
    out.put("object_bytes", size);
    out.put("small_objects", small);
    out.put("small_bytes", smallBytes);
    out.put("listed", listed);
  }

  private boolean wanted(String measure) {
    return only == null || only.contains(measure);
  }

  private void coldReads(Map<String, Object> out, RawS3 raw, FileSystem fs, long size)
      throws Exception {
    int inFlight = (int) (ConfType.BYTES.parse(UserKeys.READ_AHEAD_MAX.defaultValue()) / pageSize);
    for (int readers : new int[] {1, 4}) {
      List<Double> ratios = new ArrayList<>();
      Runs.Rounds rounds =
          new Runs.Rounds("cold read, " + readers + " reader(s)", warmups, maxWarmups, compilers);
      for (int run = rounds.first(); run < runs; run = rounds.next(run)) {
        fs.free("/s3/big");
        Runs.quiet();
        double strata;
        // A client of its own: a client that read the pages before may still hold short-circuit
        // leases on them, and read them warm from the worker's files whatever free dropped.
        try (FileSystem cold = FileSystem.create(fs.conf())) {
          strata = readAll(cold, "/s3/big", readers);
        }
        Runs.quiet();
        double direct = rawReads(raw, size, readers, Math.max(1, inFlight));
        Runs.keep(ratios, run, strata / direct);
        System.out.printf(
            Locale.ROOT,
            "cold read, %d reader(s), %s: Strata %.0f MB/s, SDK %.0f MB/s, ratio %.3f%n",
            readers,
            Runs.label(run),
            strata,
            direct,
            strata / direct);
      }
      Runs.report(out, "cold_read_" + readers + "_vs_raw", ratios, "x");
      out.put("cold_read_" + readers + "_warmups", rounds.warmups());
    }
    out.put("cold_read_vs_raw", out.get("cold_read_4_vs_raw"));
  }

  private void load(
      Map<String, Object> out, RawS3 raw, FileSystem fs, MasterClient master, int smallBytes)
      throws Exception {
    int loadThreads = Integer.parseInt(WorkerKeys.LOAD_THREADS.defaultValue());
    List<Double> loads = new ArrayList<>();
    Runs.Rounds rounds = new Runs.Rounds("load", warmups, maxWarmups, compilers);
    for (int run = rounds.first(); run < runs; run = rounds.next(run)) {
      fs.free("/s3/small");
      Runs.quiet();
      LoadJob job = Loads.run(master, "/s3/small", 0);
      double strata = job.getCounters().getBytesLoaded() / Loads.seconds(job) / 1e6;
      Runs.quiet();
      long start = System.nanoTime();
      long bytes = raw.downloadFolder("data/small/", loadThreads);
      if (bytes != (long) small * smallBytes) {
        throw new IllegalStateException("downloaded " + bytes + " bytes of the small objects");
      }
      double direct = bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
      Runs.keep(loads, run, strata / direct);
      System.out.printf(
          Locale.ROOT,
          "load of %d objects, %s: Strata %.1f MB/s, SDK with %d threads %.1f MB/s, ratio %.3f%n",
          small,
          Runs.label(run),
          strata,
          loadThreads,
          direct,
          strata / direct);
    }
    Runs.report(out, "load_vs_raw", loads, "x");
    out.put("load_warmups", rounds.warmups());
  }

  /**
   * Each mount's objects read right after they were loaded, both from the same state. The two data
   * sets together are twice the memory tier: read in turn with both loaded once, each read moved
   * its pages into memory and pushed the other's out, and the ratio followed what ran before it
   * (0.71 with {@code --only warm}, 0.88 to 1.27 in full runs), not the mount.
   */
  private void warmReads(Map<String, Object> out, MasterClient master, FileSystem fs)
      throws Exception {
    List<Double> warm = new ArrayList<>();
    Runs.Rounds rounds = new Runs.Rounds("warm read", warmups, maxWarmups, compilers);
    for (int run = rounds.first(); run < runs; run = rounds.next(run)) {
      // Each read follows one of the other mount's, the S3 mount's in the previous run: a read
      // right after one of its own mount ran up to 40 % faster (when the order alternated).
      double s3 = loadedRead(master, fs, "/s3/big");
      double folder = loadedRead(master, fs, "/local");
      Runs.keep(warm, run, s3 / folder);
      System.out.printf(
          Locale.ROOT,
          "warm read, %s: S3 mount %.0f MB/s, local folder %.0f MB/s, ratio %.3f%n",
          Runs.label(run),
          s3,
          folder,
          s3 / folder);
    }
    Runs.report(out, "warm_vs_local", warm, "x");
    out.put("warm_warmups", rounds.warmups());
  }

  /** Frees {@code folder}, loads it again and reads it whole by 4 readers; MB/s. */
  private double loadedRead(MasterClient master, FileSystem fs, String folder) throws Exception {
    fs.free(folder);
    Loads.run(master, folder, 4);
    Runs.flushed();
    Runs.quiet();
    return readAll(fs, folder, 4);
  }

  private void listing(Map<String, Object> out, RawS3 raw, FileSystem fs) throws Exception {
    List<Double> lists = new ArrayList<>();
    for (int run = -warmups; run < runs; run++) {
      fs.invalidate("/s3/list", true);
      long start = System.nanoTime();
      int n = fs.listStatus("/s3/list").size();
      double strata = (System.nanoTime() - start) / 1e9;
      start = System.nanoTime();
      int m = raw.list("data/list/");
      double direct = (System.nanoTime() - start) / 1e9;
      if (n != listed || m != listed) {
        throw new IllegalStateException("listed " + n + " and " + m + ", not " + listed);
      }
      Runs.keep(lists, run, direct / strata);
      System.out.printf(
          Locale.ROOT,
          "listing %d objects, %s: Strata %.2f s, SDK %.2f s, speed ratio %.3f%n",
          listed,
          Runs.label(run),
          strata,
          direct,
          direct / strata);
    }
    Runs.report(out, "list_vs_raw", lists, "x");
  }

  /** Reads every file of {@code folder} whole, {@code readers} files at a time; MB/s. */
  private double readAll(FileSystem fs, String folder, int readers) throws Exception {
    List<String> files = fs.listStatus(folder).stream().map(f -> f.path()).sorted().toList();
    ExecutorService pool = Executors.newFixedThreadPool(readers);
    long start = System.nanoTime();
    long bytes = 0;
    try {
      List<Future<Long>> reads = new ArrayList<>();
      for (String f : files) {
        reads.add(
            pool.submit(
                () -> {
                  byte[] buf = new byte[1 << 20];
                  long n = 0;
                  try (FileInStream in = fs.open(f)) {
                    for (int got; (got = in.read(buf, 0, buf.length)) > 0; ) {
                      n += got;
                    }
                  }
                  return n;
                }));
      }
      for (Future<Long> r : reads) {
        bytes += r.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
  }

  /** The large objects straight from S3, {@code readers} at a time, each in ranged GETs; MB/s. */
  private double rawReads(RawS3 raw, long size, int readers, int inFlight) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(readers);
    long start = System.nanoTime();
    long bytes = 0;
    try {
      List<Future<Long>> reads = new ArrayList<>();
      for (int i = 0; i < objects; i++) {
        String key = "data/big/o" + i;
        reads.add(pool.submit(() -> raw.download(key, size, (int) pageSize, inFlight)));
      }
      for (Future<Long> r : reads) {
        bytes += r.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
  }

  private static String smallKey(int i) {
    return String.format("data/small/%02d/s%05d", i % 20, i);
  }

  private void writeDataset(RawS3 raw, Path ufsRoot, long size, int smallBytes) throws Exception {
    Random r = new Random(9);
    Files.createDirectories(ufsRoot.resolve("local"));
    for (int i = 0; i < objects; i++) {
      byte[] bytes = new byte[Math.toIntExact(size)];
      r.nextBytes(bytes);
      raw.put("data/big/o" + i, bytes);
      Files.write(ufsRoot.resolve("local/o" + i), bytes);
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> puts = new ArrayList<>();
      byte[] content = new byte[smallBytes];
      r.nextBytes(content);
      for (int i = 0; i < small; i++) {
        String key = smallKey(i);
        puts.add(pool.submit(() -> raw.put(key, content)));
      }
      for (int i = 0; i < listed; i++) {
        String key = String.format("data/list/l%05d", i);
        puts.add(pool.submit(() -> raw.put(key, new byte[1])));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void mount(MasterClient master, URI store, String bucket) {
    MountPoint mount =
        MountPoint.newBuilder()
            .setPath("/s3")
            .setUfsUri("s3://" + bucket + "/data")
            .putOptions("s3.endpoint", store.toString())
            .putOptions("s3.path.style.access", "true")
            .putOptions("s3.access.key", accessKey)
            .putOptions("s3.secret.key", secretKey)
            .build();
    master.call("mount", s -> s.mount(MountRequest.newBuilder().setMount(mount).build()));
  }
}
