package io.strata.bench.probe;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.testkit.OwnEnvironment;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.page.PageId;
import io.strata.worker.page.SsdLayout;
import io.strata.worker.page.SsdTier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Measures how long an SSD tier holding N pages takes to come back (run by {@code strata bench
 * cache} in its own JVM): writes N small pages, closes the tier (sealing it), reopens it and times
 * that; then a JVM of its own writes one more segment's worth and is killed with SIGKILL in the
 * middle of its open segment, and the recovery that follows is timed. Prints one JSON line.
 *
 * <p>Usage: {@code RestartProbe PAGES PAGE_BYTES FOLDER}; {@code RestartProbe fill FIRST COUNT
 * PAGE_BYTES FOLDER} is the JVM that is killed.
 */
public final class RestartProbe {
  private static final long SEGMENT = 64L << 20;
  private static final String FILLED = "filled";

  private RestartProbe() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("fill")) {
      fillThenWait(
          Long.parseLong(args[1]),
          Long.parseLong(args[2]),
          Integer.parseInt(args[3]),
          Path.of(args[4]));
      return;
    }
    long pages = Long.parseLong(args[0]);
    int pageBytes = Integer.parseInt(args[1]);
    Path dir = Path.of(args[2]);
    ByteBuf page = page(pageBytes);
    SsdTier tier = open(dir, pageBytes, pages);
    for (long i = 0; i < pages; i++) {
      tier.write(new PageId(1, 2, i), page);
    }
    tier.close();
    page.release();
    long t = System.nanoTime();
    tier = open(dir, pageBytes, pages);
    double cleanSeconds = (System.nanoTime() - t) / 1e9;
    long cleanPages = tier.pages();
    tier.close();

    killWhileFilling(pages, SEGMENT / (pageBytes + 64), pageBytes, dir);
    t = System.nanoTime();
    tier = open(dir, pageBytes, pages);
    double crashSeconds = (System.nanoTime() - t) / 1e9;
    long crashPages = tier.pages();
    tier.close();
    System.out.printf(
        Locale.ROOT,
        "{\"restart_pages\":%d,\"restart_clean_s\":%.3f,\"restart_after_kill_s\":%.3f,"
            + "\"pages_after_kill\":%d}%n",
        cleanPages,
        cleanSeconds,
        crashSeconds,
        crashPages);
  }

  /** Runs the filling JVM until it says it is done, then kills it with SIGKILL. */
  private static void killWhileFilling(long first, long count, int pageBytes, Path dir)
      throws IOException, InterruptedException {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            RestartProbe.class.getName(),
            "fill",
            String.valueOf(first),
            String.valueOf(count),
            String.valueOf(pageBytes),
            dir.toString());
    Process filler = OwnEnvironment.of(new ProcessBuilder(cmd)).redirectErrorStream(true).start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(filler.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && !line.equals(FILLED)) {
        // its log lines
      }
      if (line == null) {
        throw new IllegalStateException("the filling JVM ended with " + filler.waitFor());
      }
    } finally {
      filler.destroyForcibly();
      filler.waitFor(60, TimeUnit.SECONDS);
    }
  }

  /** The killed JVM: writes {@code count} pages into the tier, says so, and waits to be killed. */
  private static void fillThenWait(long first, long count, int pageBytes, Path dir)
      throws IOException, InterruptedException {
    ByteBuf page = page(pageBytes);
    SsdTier tier = open(dir, pageBytes, first);
    for (long i = first; i < first + count; i++) {
      tier.write(new PageId(1, 2, i), page);
    }
    System.out.println(FILLED);
    System.out.flush();
    Thread.sleep(TimeUnit.MINUTES.toMillis(10));
  }

  private static ByteBuf page(int pageBytes) {
    return PooledByteBufAllocator.DEFAULT.directBuffer(pageBytes).writeZero(pageBytes);
  }

  private static SsdTier open(Path dir, int pageBytes, long pages) throws IOException {
    long quota = Math.max(4 * SEGMENT, (pages + SEGMENT / pageBytes) * (pageBytes + 64) * 2);
    return SsdTier.open(
        new SsdLayout(dir, quota, SEGMENT, 0),
        RocksKvStore.open(dir.resolve("index"), 32 << 20),
        PooledByteBufAllocator.DEFAULT,
        System::nanoTime,
        new SimpleMeterRegistry());
  }
}
