package io.strata.worker.data;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.strata.core.status.StatusCode;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.read.PageFetcher;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/** The data server's meters, registered once and shared by every connection. */
public final class DataServerMetrics {
  private final Map<PageFetcher.Source, Counter> bytes = new EnumMap<>(PageFetcher.Source.class);
  private final Map<StatusCode, Timer> latency = new EnumMap<>(StatusCode.class);
  private final Counter leases;
  private final Map<String, Counter> requests = new java.util.HashMap<>();
  private final Counter tcpConnections;
  private final Counter domainSocketConnections;
  private final Counter refusedConnections;

  public DataServerMetrics(MeterRegistry registry) {
    for (PageFetcher.Source source : PageFetcher.Source.values()) {
      bytes.put(
          source,
          Counter.builder(WorkerMetrics.BYTES_READ)
              .tag("source", source.name().toLowerCase(Locale.ROOT))
              .description("Bytes sent to readers, by where the page came from")
              .register(registry));
    }
    for (StatusCode code : StatusCode.values()) {
      latency.put(
          code,
          Timer.builder(WorkerMetrics.DATA_READ_LATENCY)
              .tag("status", code.name())
              .description("Data-plane READ requests, by outcome")
              .register(registry));
    }
    tcpConnections =
        Counter.builder(WorkerMetrics.DATA_CONNECTIONS)
            .tag("transport", "tcp")
            .description("Data connections accepted, by transport")
            .register(registry);
    domainSocketConnections =
        Counter.builder(WorkerMetrics.DATA_CONNECTIONS)
            .tag("transport", "domain_socket")
            .description("Data connections accepted, by transport")
            .register(registry);
    refusedConnections =
        Counter.builder(WorkerMetrics.DATA_CONNECTIONS_REFUSED)
            .description("Data connections closed as they arrived: the worker had its most open")
            .register(registry);
    for (String kind : new String[] {"read", "open", "lease", "whole"}) {
      requests.put(
          kind,
          Counter.builder(WorkerMetrics.DATA_REQUESTS)
              .tag("kind", kind)
              .description("Data-plane requests (round trips), by kind")
              .register(registry));
    }
    leases =
        Counter.builder(WorkerMetrics.SHORT_CIRCUIT_LEASES)
            .description("Short-circuit leases granted to local readers")
            .register(registry);
  }

  Counter connections(boolean domainSocket) {
    return domainSocket ? domainSocketConnections : tcpConnections;
  }

  Counter refusedConnections() {
    return refusedConnections;
  }

  /** Requests of {@code kind}: read, open or lease. */
  Counter requests(String kind) {
    return requests.get(kind);
  }

  Counter leases() {
    return leases;
  }

  Counter bytes(PageFetcher.Source source) {
    return bytes.get(source);
  }

  Timer latency(StatusCode code) {
    return latency.get(code);
  }
}
