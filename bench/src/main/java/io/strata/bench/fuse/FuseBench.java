package io.strata.bench.fuse;

import io.strata.bench.Json;
import io.strata.bench.ParallelReads;
import io.strata.bench.Scripts;
import io.strata.bench.Stats;
import io.strata.bench.Trees;
import io.strata.core.conf.ConfType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strata bench fuse}: fio and small-file reads through a Strata FUSE mount, beside the same
 * reads in the same run on the UFS folder directly and through {@code bindfs --multithreaded} with
 * kernel_cache (a C FUSE passthrough: the ceiling of any FUSE file system on this kernel).
 *
 * <p>The cluster is what a user gets: {@code bin/strata-start.sh local} with no configuration
 * beyond its own ports and folders, and {@code bin/strata fuse mount}. The headline figures are
 * reads through the FUSE daemon ({@code *_daemon}: fio drops the file's kernel pages first, so
 * every read reaches the daemon; the data is warm in Strata, as for a data set larger than memory);
 * warm figures (in the kernel's page cache) follow. Then {@link PassthroughCase}: fio through a
 * read-only mount whose opens pass through, against fio on the file they pass through to.
 */
@Command(
    name = "fuse",
    mixinStandardHelpOptions = true,
    description = "FUSE reads of a default local cluster against the folder itself and bindfs.")
public final class FuseBench implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "5", description = "Runs of each measurement.")
  int runs;

  @Option(
      names = "--file-size",
      defaultValue = "256MiB",
      description = "The large file read by fio.")
  String fileSize;

  @Option(
      names = "--small-files",
      defaultValue = "5000",
      description = "Files of 100 KiB read one by one.")
  int smallFiles;

  @Option(names = "--seconds", defaultValue = "5", description = "Length of each fio job.")
  int seconds;

  @Option(
      names = "--passthrough-size",
      defaultValue = "1GiB",
      description =
          "A file read by fio through a read-only mount whose opens pass through (loaded first),"
              + " against fio on the worker's file it passes through to; 0 leaves it out.")
  String passthroughSize;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  /** A way to the same files: the folder itself, bindfs, Strata. */
  private record Way(String name, Path root) {}

  @Override
  public Integer call() throws Exception {
    Path home = Path.of(System.getProperty("strata.home", ".")).toAbsolutePath();
    Path work = Trees.temporary("strata-bench-fuse");
    Map<String, List<Double>> ratios = new LinkedHashMap<>();
    Map<String, List<Double>> toolSeconds = new LinkedHashMap<>();
    Scripts scripts = new Scripts(home, work);
    try {
      scripts.must("bin/strata-start.sh", "local");
      Path data = scripts.ufsRoot().resolve("bench");
      writeDataset(data, ConfType.BYTES.parse(fileSize), smallFiles);
      Path strataMnt = Files.createDirectories(work.resolve("mnt-strata"));
      Path bindMnt = Files.createDirectories(work.resolve("mnt-bindfs"));
      scripts.must("bin/strata", "fuse", "mount", strataMnt.toString(), "/bench");
      Mounts.bindfs(data, bindMnt);
      try {
        List<Way> ways =
            List.of(
                new Way("direct", data), new Way("bindfs", bindMnt), new Way("strata", strataMnt));
        for (Way w : ways) {
          ParallelReads.folder(w.root().resolve("small"), 4);
          Mounts.readWhole(w.root().resolve("big.bin"));
        }
        for (int run = 1; run <= runs; run++) {
          Map<String, Map<String, Double>> byWay = new LinkedHashMap<>();
          for (Way w : ways) {
            byWay.put(w.name(), measure(w));
          }
          timeTools(strataMnt.resolve("small"), bindMnt.resolve("small"), toolSeconds);
          Map<String, Double> s = byWay.get("strata");
          for (String m : s.keySet()) {
            ratios
                .computeIfAbsent(m + "_vs_bindfs", k -> new ArrayList<>())
                .add(s.get(m) / byWay.get("bindfs").get(m));
            ratios
                .computeIfAbsent(m + "_vs_direct", k -> new ArrayList<>())
                .add(s.get(m) / byWay.get("direct").get(m));
          }
          System.out.println("run " + run + ": " + byWay);
        }
        long passthrough = ConfType.BYTES.parse(passthroughSize);
        if (passthrough > 0) {
          new PassthroughCase(scripts, work, data, passthrough, seconds).measure(runs, ratios);
        }
      } finally {
        Mounts.unmount(bindMnt);
        scripts.run("bin/strata", "fuse", "unmount", strataMnt.toString());
      }
    } finally {
      scripts.run("bin/strata-stop.sh");
      Trees.delete(work);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    ratios.forEach(
        (k, v) -> {
          Stats st = Stats.of(v);
          System.out.println(k + ": " + st.format("x"));
          out.put(k, st.median());
          out.put(k + "_min", st.min());
          out.put(k + "_max", st.max());
        });
    toolSeconds.forEach(
        (k, v) -> {
          Stats st = Stats.of(v);
          System.out.println(k + ": " + st.format("s"));
          out.put(k, st.median());
        });
    if (json) {
      System.out.println(Json.object(out));
    }
    return 0;
  }

  /** Seconds of {@code ls -lR} and {@code stat} over the small files, through Strata and bindfs. */
  private void timeTools(Path strata, Path bindfs, Map<String, List<Double>> toolSeconds) {
    String n = String.valueOf(smallFiles);
    toolSeconds
        .computeIfAbsent("lsR_" + n + "_s", k -> new ArrayList<>())
        .add(Mounts.timeLsR(strata));
    toolSeconds
        .computeIfAbsent("lsR_" + n + "_bindfs_s", k -> new ArrayList<>())
        .add(Mounts.timeLsR(bindfs));
    toolSeconds
        .computeIfAbsent("stat_" + n + "_s", k -> new ArrayList<>())
        .add(Mounts.timeStat(strata));
    toolSeconds
        .computeIfAbsent("stat_" + n + "_bindfs_s", k -> new ArrayList<>())
        .add(Mounts.timeStat(bindfs));
  }

  /**
   * MB/s of sequential 1 MiB reads (1 and 4 jobs), IOPS of random 4 KiB reads, files/s of small
   * files. Warm means in the page cache, as the direct baseline is; the {@code _daemon} figures
   * drop the file's pages first, so a mount's reads all go through its FUSE daemon (data warm in
   * Strata, not in the kernel: a data set larger than memory). Warm data is read again right before
   * it is timed, not only at the start of the run.
   */
  private Map<String, Double> measure(Way w) throws Exception {
    String big = w.root().resolve("big.bin").toString();
    Map<String, Double> m = new LinkedHashMap<>();
    // Untimed, through the daemon: this host pages out file pages left idle for a minute (DAMON),
    // and the other ways' runs take longer than that. Without these passes Strata's segment files
    // were read back from the disk in its timed runs (and its random-read path ran colder than
    // the rest), while bindfs read the folder the direct baseline had just read.
    Fio.read(big, "read", "1m", 1, 1, false);
    Fio.read(big, "randread", "4k", 1, 1, false);
    m.put("seq1_daemon", Fio.read(big, "read", "1m", 1, seconds, false).mbPerSecond());
    m.put("seq4_daemon", Fio.read(big, "read", "1m", 4, seconds, false).mbPerSecond());
    m.put("rand4k_daemon", Fio.read(big, "randread", "4k", 1, seconds, false).iops());
    Mounts.readWhole(w.root().resolve("big.bin"));
    m.put("seq1", Fio.read(big, "read", "1m", 1, seconds, true).mbPerSecond());
    m.put("seq4", Fio.read(big, "read", "1m", 4, seconds, true).mbPerSecond());
    m.put("rand4k", Fio.read(big, "randread", "4k", 1, seconds, true).iops());
    // Read just before: this host pages out file pages left idle for about a minute (DAMON).
    ParallelReads.folder(w.root().resolve("small"), 4);
    m.put("small_files", ParallelReads.folder(w.root().resolve("small"), 4));
    return m;
  }

  private static void writeDataset(Path data, long bigSize, int smallFiles) throws Exception {
    Files.createDirectories(data.resolve("small"));
    Random r = new Random(5);
    byte[] block = new byte[1 << 20];
    try (var out = Files.newOutputStream(data.resolve("big.bin"))) {
      for (long done = 0; done < bigSize; done += block.length) {
        r.nextBytes(block);
        out.write(block, 0, (int) Math.min(block.length, bigSize - done));
      }
    }
    byte[] small = new byte[100 << 10];
    for (int i = 0; i < smallFiles; i++) {
      r.nextBytes(small);
      Files.write(data.resolve("small").resolve(String.format("s%05d", i)), small);
    }
  }
}
