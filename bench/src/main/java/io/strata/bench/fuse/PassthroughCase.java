package io.strata.bench.fuse;

import io.strata.bench.Scripts;
import io.strata.bench.loader.LoaderBench;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code bench fuse}'s passthrough case (issue 79): a file loaded whole into the worker's cache,
 * read by fio through a mount with the options recommended for a training data set (read-only, so
 * its opens pass through and the kernel reads the worker's file itself), against fio on that very
 * file in the same run. Sequential 1 MiB and random 4 KiB reads with the file in the page cache,
 * and random 4 KiB reads with the page cache dropped before each (both sides then read the disk).
 * The bench fails if the mount's opens did not pass through.
 */
final class PassthroughCase {
  private static final Pattern PASSED = Pattern.compile("\"passthrough_opens\":(\\d+)");

  private final Scripts scripts;
  private final Path work;
  private final Path data;
  private final long size;
  private final int seconds;

  /**
   * @param data the folder mounted at {@code /bench}
   * @param size bytes of the file
   * @param seconds length of each fio job
   */
  PassthroughCase(Scripts scripts, Path work, Path data, long size, int seconds) {
    this.scripts = scripts;
    this.work = work;
    this.data = data;
    this.size = size;
    this.seconds = seconds;
  }

  /** Adds each run's ratios (mount ÷ backing file) to {@code ratios}. */
  void measure(int runs, Map<String, List<Double>> ratios) throws Exception {
    Path folder = Files.createDirectories(data.resolve("passthrough"));
    write(folder.resolve("pt.bin"));
    scripts.must("bin/strata", "fs", "distributedLoad", "/bench/passthrough");
    Path backing = wholeFile();
    Path mnt = Files.createDirectories(work.resolve("mnt-passthrough"));
    scripts.must(
        "bin/strata",
        "fuse",
        "mount",
        mnt.toString(),
        "/bench/passthrough",
        "-o",
        LoaderBench.RECOMMENDED_OPTIONS);
    try {
      String through = mnt.resolve("pt.bin").toString();
      Mounts.readWhole(mnt.resolve("pt.bin"));
      for (int run = 1; run <= runs; run++) {
        Map<String, Double> m = new LinkedHashMap<>();
        Mounts.readWhole(backing);
        m.put(
            "passthrough_seq1_vs_backing",
            Fio.read(through, "read", "1m", 1, seconds, true).mbPerSecond()
                / Fio.read(backing.toString(), "read", "1m", 1, seconds, true).mbPerSecond());
        m.put(
            "passthrough_rand4k_vs_backing",
            Fio.read(through, "randread", "4k", 1, seconds, true).iops()
                / Fio.read(backing.toString(), "randread", "4k", 1, seconds, true).iops());
        System.out.println("passthrough, run " + run + ": " + m);
        m.forEach((k, v) -> ratios.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
      }
      long passed = passedThrough(mnt);
      if (passed == 0) {
        throw StrataException.internal(
            "no open of "
                + through
                + " passed through (the mount needs root, and a read-only"
                + " mount): its figures would be of reads through the daemon",
            null);
      }
    } finally {
      scripts.run("bin/strata", "fuse", "unmount", mnt.toString());
    }
  }

  private void write(Path file) throws IOException {
    Random r = new Random(79);
    byte[] block = new byte[1 << 20];
    try (var out = Files.newOutputStream(file)) {
      for (long done = 0; done < size; done += block.length) {
        r.nextBytes(block);
        out.write(block, 0, (int) Math.min(block.length, size - done));
      }
    }
  }

  /** The worker's whole file of the loaded file: the one of its size in the cache's areas. */
  private Path wholeFile() throws IOException {
    List<Path> found = new ArrayList<>();
    try (Stream<Path> all = Files.walk(work.resolve("cache"))) {
      for (Path p : (Iterable<Path>) all::iterator) {
        if (p.getParent().getFileName().toString().equals("whole")
            && Files.isRegularFile(p)
            && Files.size(p) == size) {
          found.add(p);
        }
      }
    }
    if (found.size() != 1) {
      throw StrataException.internal(
          "expected one whole file of " + size + " bytes in the worker's cache, found " + found,
          null);
    }
    return found.get(0);
  }

  private long passedThrough(Path mnt) throws Exception {
    String out = scripts.must("bin/strata", "fuse", "stat", mnt.toString(), "--json").out();
    Matcher m = PASSED.matcher(out);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
