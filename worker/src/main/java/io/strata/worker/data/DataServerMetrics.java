package io.strata.worker.data;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.strata.core.status.StatusCode;
import io.strata.worker.WorkerMetrics;
import java.util.EnumMap;
import java.util.Map;

/** The data server's meters, registered once and shared by every connection. */
public final class DataServerMetrics {
  private final Counter bytesFromCache;
  private final Counter bytesFromUfs;
  private final Map<StatusCode, Timer> latency = new EnumMap<>(StatusCode.class);

  public DataServerMetrics(MeterRegistry registry) {
    this.bytesFromCache = Counter.builder(WorkerMetrics.BYTES_READ).tag("source", "cache")
        .description("Bytes sent to readers, by where the page came from").register(registry);
    this.bytesFromUfs = Counter.builder(WorkerMetrics.BYTES_READ).tag("source", "ufs")
        .description("Bytes sent to readers, by where the page came from").register(registry);
    for (StatusCode code : StatusCode.values()) {
      latency.put(code, Timer.builder(WorkerMetrics.DATA_READ_LATENCY).tag("status", code.name())
          .description("Data-plane READ requests, by outcome").register(registry));
    }
  }

  Counter bytesFromCache() {
    return bytesFromCache;
  }

  Counter bytesFromUfs() {
    return bytesFromUfs;
  }

  Timer latency(StatusCode code) {
    return latency.get(code);
  }
}
