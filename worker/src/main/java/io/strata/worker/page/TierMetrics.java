package io.strata.worker.page;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.strata.worker.WorkerMetrics;
import java.util.function.Supplier;

/** The meters of one cache tier, tagged tier=MEM|SSD (and dir=... for an SSD folder). */
public final class TierMetrics {
  final Counter hits;
  final Counter evictions;
  final Counter demotions;
  final Counter promotions;
  final Counter checksumFailures;
  final Counter bytesWritten;

  TierMetrics(
      MeterRegistry registry,
      String tier,
      String dir,
      Supplier<Number> used,
      Supplier<Number> capacity,
      Supplier<Number> pages) {
    Tags tags = dir == null ? Tags.of("tier", tier) : Tags.of("tier", tier, "dir", dir);
    hits =
        Counter.builder(WorkerMetrics.TIER_HITS)
            .tags(tags)
            .description("Pages served from this tier")
            .register(registry);
    evictions =
        Counter.builder(WorkerMetrics.PAGE_EVICTIONS)
            .tags(tags)
            .description("Pages evicted from this tier")
            .register(registry);
    demotions =
        Counter.builder(WorkerMetrics.DEMOTIONS)
            .tags(tags)
            .description("Pages evicted from memory that stay cached on SSD")
            .register(registry);
    promotions =
        Counter.builder(WorkerMetrics.PROMOTIONS)
            .tags(tags)
            .description("Pages read from SSD and admitted to memory")
            .register(registry);
    checksumFailures =
        Counter.builder(WorkerMetrics.CHECKSUM_FAILURES)
            .tags(tags)
            .description(
                "Pages whose crc32c did not match when read; dropped and read again from the UFS")
            .register(registry);
    bytesWritten =
        Counter.builder(WorkerMetrics.CACHE_BYTES_WRITTEN)
            .tags(tags)
            .description("Bytes written to this tier's files (records and their headers)")
            .register(registry);
    Gauge.builder(WorkerMetrics.CACHE_USED_BYTES, used)
        .tags(tags)
        .description("Bytes this tier holds")
        .register(registry);
    Gauge.builder(WorkerMetrics.CACHE_CAPACITY_BYTES, capacity)
        .tags(tags)
        .description("Capacity of this tier")
        .register(registry);
    Gauge.builder(WorkerMetrics.PAGES_CACHED, pages)
        .tags(tags)
        .description("Pages in this tier")
        .register(registry);
  }
}
