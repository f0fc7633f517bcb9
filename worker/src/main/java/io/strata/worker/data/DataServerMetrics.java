package io.strata.worker.data;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.strata.core.status.StatusCode;
import io.strata.worker.WorkerMetrics;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import io.strata.worker.read.PageFetcher;

/** The data server's meters, registered once and shared by every connection. */
public final class DataServerMetrics {
  private final Map<PageFetcher.Source, Counter> bytes = new EnumMap<>(PageFetcher.Source.class);
  private final Map<StatusCode, Timer> latency = new EnumMap<>(StatusCode.class);

  public DataServerMetrics(MeterRegistry registry) {
    for (PageFetcher.Source source : PageFetcher.Source.values()) {
      bytes.put(source, Counter.builder(WorkerMetrics.BYTES_READ).tag("source", source.name().toLowerCase(Locale.ROOT))
          .description("Bytes sent to readers, by where the page came from").register(registry));
    }
    for (StatusCode code : StatusCode.values()) {
      latency.put(code, Timer.builder(WorkerMetrics.DATA_READ_LATENCY).tag("status", code.name())
          .description("Data-plane READ requests, by outcome").register(registry));
    }
  }

  Counter bytes(PageFetcher.Source source) {
    return bytes.get(source);
  }

  Timer latency(StatusCode code) {
    return latency.get(code);
  }
}
