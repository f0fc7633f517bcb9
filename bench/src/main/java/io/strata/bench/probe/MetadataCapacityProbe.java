package io.strata.bench.probe;

import io.strata.core.proto.FileStatus;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.meta.MetadataCache;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * Measures the metadata cache at scale, in its own JVM (run by {@code strata bench cache}): loads N
 * file statuses through the cache (memory bounded at its default 1M entries, the rest in RocksDB),
 * then looks up random ones. Prints one JSON line: entries, heap used, RocksDB bytes, look-up
 * p50/p99.
 *
 * <p>Usage: {@code MetadataCapacityProbe ENTRIES FOLDER}
 */
public final class MetadataCapacityProbe {
  private MetadataCapacityProbe() {}

  public static void main(String[] args) throws Exception {
    long entries = Long.parseLong(args[0]);
    Path folder = Path.of(args[1]);
    try (KvStore store = RocksKvStore.openWithTtl(folder, 64 << 20, 86_400)) {
      MetadataCache cache =
          new MetadataCache(
              1_000_000,
              Duration.ofDays(1),
              Duration.ofSeconds(5),
              System::currentTimeMillis,
              store);
      long now = System.currentTimeMillis();
      for (long i = 0; i < entries; i++) {
        String uri = uri(i);
        FileStatus s =
            FileStatus.newBuilder()
                .setPath(uri.substring(13))
                .setName("part-" + i)
                .setLength(i * 7)
                .setMtimeMs(now)
                .setMode(0644)
                .setOwner("train")
                .setGroup("ml")
                .setFingerprint(i * 7 + ":" + now + ":" + i)
                .setUfsPath(uri)
                .setCachedBytes(-1)
                .build();
        cache.putStatus(uri, s, now);
      }
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      Random r = new Random(1);
      int lookups = 200_000;
      long[] nanos = new long[lookups];
      for (int k = 0; k < lookups; k++) {
        String uri = uri(Math.floorMod(r.nextLong(), entries));
        long t = System.nanoTime();
        if (cache.status(uri) == null) {
          throw new IllegalStateException("lost " + uri);
        }
        nanos[k] = System.nanoTime() - t;
      }
      Arrays.sort(nanos);
      System.out.printf(
          Locale.ROOT,
          "{\"meta_entries\":%d,\"meta_heap_bytes\":%d,\"meta_rocksdb_bytes\":%d,"
              + "\"meta_lookup_p50_ms\":%.4f,\"meta_lookup_p99_ms\":%.4f,\"meta_memory_entries\":%d}%n",
          entries,
          heap,
          store.sizeOnDisk(),
          nanos[lookups / 2] / 1e6,
          nanos[lookups * 99 / 100] / 1e6,
          cache.memoryEntries());
    }
  }

  private static String uri(long i) {
    return "file:///data/datasets/images/shard-" + (i / 10_000) + "/part-" + i + ".jpg";
  }
}
