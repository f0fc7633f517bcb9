package io.strata.worker.probe;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.page.PageId;
import io.strata.worker.page.SsdTier;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Measures how long an SSD tier holding N pages takes to come back (run by {@code strata bench
 * cache} in its own JVM): writes N small pages, closes the tier (sealing it), reopens it and times
 * that; then writes one more segment's worth, abandons the tier without sealing (as kill -9 would)
 * and times the recovery. Prints one JSON line.
 *
 * <p>Usage: {@code RestartProbe PAGES PAGE_BYTES FOLDER}
 */
public final class RestartProbe {
  private static final long SEGMENT = 64L << 20;

  private RestartProbe() {}

  public static void main(String[] args) throws Exception {
    long pages = Long.parseLong(args[0]);
    int pageBytes = Integer.parseInt(args[1]);
    Path dir = Path.of(args[2]);
    long quota = Math.max(4 * SEGMENT, (pages + SEGMENT / pageBytes) * (pageBytes + 64) * 2);
    ByteBuf page = PooledByteBufAllocator.DEFAULT.directBuffer(pageBytes).writeZero(pageBytes);
    SsdTier tier = open(dir, quota);
    for (long i = 0; i < pages; i++) {
      tier.write(new PageId(1, 2, i), page);
    }
    tier.close();
    long t = System.nanoTime();
    tier = open(dir, quota);
    double cleanSeconds = (System.nanoTime() - t) / 1e9;
    long cleanPages = tier.pages();
    for (long i = pages; i < pages + SEGMENT / (pageBytes + 64); i++) {
      tier.write(new PageId(1, 2, i), page);
    }
    t = System.nanoTime();
    tier.closeAsIfKilled();
    tier = open(dir, quota);
    double crashSeconds = (System.nanoTime() - t) / 1e9;
    long crashPages = tier.pages();
    tier.close();
    page.release();
    System.out.printf(
        Locale.ROOT,
        "{\"restart_pages\":%d,\"restart_clean_s\":%.3f,\"restart_after_kill_s\":%.3f,"
            + "\"pages_after_kill\":%d}%n",
        cleanPages,
        cleanSeconds,
        crashSeconds,
        crashPages);
  }

  private static SsdTier open(Path dir, long quota) throws java.io.IOException {
    return SsdTier.open(
        dir,
        quota,
        SEGMENT,
        0,
        RocksKvStore.open(dir.resolve("index"), 32 << 20),
        PooledByteBufAllocator.DEFAULT,
        System::nanoTime,
        new SimpleMeterRegistry());
  }
}
