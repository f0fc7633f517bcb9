package io.strata.bench.read;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** The two read patterns of {@code strata bench read}, run by some threads against a target. */
final class Workloads {
  static final int SEQ_BUFFER = 1 << 20;
  static final int RANDOM_READ = 4096;

  /** Latencies one thread records at most in one random run. */
  private static final int MAX_SAMPLES = 2_000_000;

  /** Random-read outcome: latency percentiles and throughput. */
  record Random4k(double p50Ms, double p99Ms, double opsPerSecond) {}

  /** Bytes read in some time; measurements in turns add up. */
  record Streamed(long bytes, long nanos) {
    static final Streamed NONE = new Streamed(0, 0);

    Streamed plus(Streamed other) {
      return new Streamed(bytes + other.bytes, nanos + other.nanos);
    }

    double megabytesPerSecond() {
      return bytes / (nanos / 1e9) / 1e6;
    }
  }

  private Workloads() {}

  /**
   * Every thread reads every file start to end in 1 MiB reads (starting at a file of its own); MB/s
   * over all.
   */
  static Streamed sequential(ReadTarget target, int threads, int fileCount) throws Exception {
    return sequential(target, threads, fileCount, 0);
  }

  /**
   * As {@link #sequential(ReadTarget, int, int)}, each thread going on to the next file until at
   * least {@code minMillis} have passed: a pass over a warm dataset takes tens of milliseconds, and
   * a measurement that short is decided by whatever else the shared host runs in it.
   */
  static Streamed sequential(ReadTarget target, int threads, int fileCount, long minMillis)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Long>> parts = new ArrayList<>();
      long start = System.nanoTime();
      long deadline = start + TimeUnit.MILLISECONDS.toNanos(minMillis);
      for (int t = 0; t < threads; t++) {
        int first = t;
        parts.add(
            pool.submit(
                () -> {
                  byte[] buf = new byte[SEQ_BUFFER];
                  long bytes = 0;
                  for (int k = 0; k < fileCount || System.nanoTime() < deadline; k++) {
                    try (ReadTarget.Session s = target.open((first + k) % fileCount)) {
                      int n;
                      while ((n = s.read(buf, 0, buf.length)) > 0) {
                        bytes += n;
                      }
                    }
                  }
                  return bytes;
                }));
      }
      long total = 0;
      for (Future<Long> f : parts) {
        total += f.get(10, TimeUnit.MINUTES);
      }
      return new Streamed(total, System.nanoTime() - start);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Each thread reads 4 KiB at random 4 KiB-aligned offsets of random files for {@code millis}. */
  static Random4k random(ReadTarget target, int threads, int fileCount, long fileSize, long millis)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<long[]>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int seed = t;
        parts.add(pool.submit(() -> randomThread(target, fileCount, fileSize, millis, seed)));
      }
      List<long[]> samples = new ArrayList<>();
      int count = 0;
      for (Future<long[]> f : parts) {
        long[] s = f.get(10, TimeUnit.MINUTES);
        samples.add(s);
        count += s.length;
      }
      long[] all = new long[count];
      int at = 0;
      for (long[] s : samples) {
        System.arraycopy(s, 0, all, at, s.length);
        at += s.length;
      }
      Arrays.sort(all);
      return new Random4k(
          percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6, count / (millis / 1000.0));
    } finally {
      pool.shutdownNow();
    }
  }

  private static long[] randomThread(
      ReadTarget target, int fileCount, long fileSize, long millis, int seed) throws Exception {
    Random r = new Random(seed);
    ReadTarget.Session[] sessions = new ReadTarget.Session[fileCount];
    for (int i = 0; i < fileCount; i++) {
      sessions[i] = target.open(i);
    }
    byte[] buf = new byte[RANDOM_READ];
    long[] latencies = new long[1024];
    int n = 0;
    long slots = fileSize / RANDOM_READ;
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    try {
      long now;
      while ((now = System.nanoTime()) < end && n < MAX_SAMPLES) {
        ReadTarget.Session s = sessions[r.nextInt(fileCount)];
        s.readFully(((long) (r.nextDouble() * slots)) * RANDOM_READ, buf, 0, RANDOM_READ);
        if (n == latencies.length) {
          latencies = Arrays.copyOf(latencies, n * 2);
        }
        latencies[n++] = System.nanoTime() - now;
      }
    } finally {
      for (ReadTarget.Session s : sessions) {
        s.close();
      }
    }
    return Arrays.copyOf(latencies, n);
  }

  private static double percentile(long[] sorted, double q) {
    return sorted.length == 0
        ? Double.NaN
        : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }
}
