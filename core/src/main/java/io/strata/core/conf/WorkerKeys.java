package io.strata.core.conf;

import java.time.Duration;

/** Keys of the worker process. */
public final class WorkerKeys {
  private WorkerKeys() {}

  public static final ConfKey<String> HOSTNAME = ConfKey.string("strata.worker.hostname")
      .defaultValue("localhost").scope(Scope.WORKER)
      .description("Host name the worker registers under; clients connect to it. Set it on every worker host.")
      .build();

  public static final ConfKey<String> BIND_HOST = ConfKey.string("strata.worker.bind.host")
      .defaultValue("0.0.0.0").scope(Scope.WORKER)
      .description("Address the worker's servers listen on.")
      .build();

  public static final ConfKey<Integer> RPC_PORT = ConfKey.integer("strata.worker.rpc.port")
      .defaultValue("7710").scope(Scope.WORKER).check(Ports::valid, Ports.MESSAGE)
      .description("Port of the worker's gRPC service (metadata and writes).")
      .build();

  public static final ConfKey<Integer> DATA_PORT = ConfKey.integer("strata.worker.data.port")
      .defaultValue("7711").scope(Scope.WORKER).check(Ports::valid, Ports.MESSAGE)
      .description("Port of the worker's Netty data server (reads).")
      .build();

  public static final ConfKey<Integer> WEB_PORT = ConfKey.integer("strata.worker.web.port")
      .defaultValue("7712").scope(Scope.WORKER).check(Ports::valid, Ports.MESSAGE)
      .description("Port serving /metrics, /health and /stacks of the worker.")
      .build();

  public static final ConfKey<Long> PAGE_SIZE = ConfKey.bytes("strata.worker.page.size")
      .defaultValue("1MiB").scope(Scope.WORKER)
      .check(n -> n >= 4096 && n <= 64L << 20 && Long.bitCount(n) == 1, "must be a power of two from 4KiB to 64MiB")
      .description("Size of a cached page: the unit of caching, eviction and UFS reads.")
      .build();

  public static final ConfKey<Long> MEM_SIZE = ConfKey.bytes("strata.worker.page.store.mem.size")
      .defaultValue("512MiB").scope(Scope.WORKER)
      .dynamic()
      .description("Off-heap memory for cached pages; keep -XX:MaxDirectMemorySize above it. A smaller value "
          + "set while running evicts down to it.")
      .build();

  public static final ConfKey<Duration> HEARTBEAT_INTERVAL = ConfKey.duration("strata.worker.heartbeat.interval")
      .defaultValue("1s").scope(Scope.WORKER).check(d -> d.toMillis() > 0, "must be positive")
      .description("How often the worker reports to the master.")
      .build();

  public static final ConfKey<Duration> METADATA_TTL = ConfKey.duration("strata.worker.metadata.cache.ttl")
      .defaultValue("1min").scope(Scope.WORKER).check(d -> !d.isNegative(), "must not be negative")
      .dynamic()
      .description("How long a cached file status or directory listing is trusted before the UFS is asked again.")
      .build();

  public static final ConfKey<Duration> METADATA_NEGATIVE_TTL =
      ConfKey.duration("strata.worker.metadata.cache.negative.ttl")
          .defaultValue("5s").scope(Scope.WORKER).check(d -> !d.isNegative(), "must not be negative")
          .dynamic()
      .description("How long 'does not exist' is remembered for a path.")
          .build();

  public static final ConfKey<Long> METADATA_MAX_ENTRIES = ConfKey.longKey("strata.worker.metadata.cache.max.entries")
      .defaultValue("1000000").scope(Scope.WORKER).check(n -> n > 0, "must be positive")
      .description("Most file statuses and listings held in the worker's in-memory metadata cache.")
      .build();

  public static final ConfKey<Integer> DATA_READER_THREADS = ConfKey.integer("strata.worker.data.reader.threads")
      .defaultValue("32").scope(Scope.WORKER).check(n -> n > 0, "must be positive")
      .description("Threads that read missed pages from the UFS; cache hits never wait for them.")
      .build();

  public static final ConfKey<Integer> RPC_THREADS = ConfKey.integer("strata.worker.rpc.threads")
      .defaultValue("16").scope(Scope.WORKER).check(n -> n > 0, "must be positive")
      .description("Threads serving the worker's gRPC requests (metadata look-ups and writes).")
      .build();

  public static final ConfKey<Boolean> ADMISSION_ENABLED = ConfKey.bool("strata.worker.page.store.admission.enabled")
      .defaultValue("true").scope(Scope.WORKER).dynamic()
      .description("Admit pages read from the UFS into the cache; off, misses are served without being cached.")
      .build();
}
