package io.strata.worker;

/** Names of the worker's meters; Prometheus shows dots as underscores. */
public final class WorkerMetrics {
  /** Bytes sent to clients, tagged source=mem|ssd|ufs. */
  public static final String BYTES_READ = "strata.worker.bytes.read";

  /** Page look-ups, tagged result=hit|miss. */
  public static final String PAGE_REQUESTS = "strata.worker.page.requests";

  public static final String CACHE_HIT_RATIO = "strata.worker.cache.hit.ratio";
  public static final String PAGES_CACHED = "strata.worker.pages.cached";
  public static final String CACHE_USED_BYTES = "strata.worker.cache.used.bytes";
  public static final String CACHE_CAPACITY_BYTES = "strata.worker.cache.capacity.bytes";
  public static final String PAGE_EVICTIONS = "strata.worker.page.evictions";

  /** Length of the memory tier's shared-memory file: the most of its memory it holds. */
  public static final String MEM_SHARED_BYTES = "strata.worker.mem.shared.bytes";

  /** Bytes of that file the kernel holds in 2 MiB huge pages. */
  public static final String MEM_HUGE_BYTES = "strata.worker.mem.huge.bytes";

  /** Per tier (tier=MEM|SSD). */
  public static final String TIER_HITS = "strata.worker.tier.hits";

  public static final String DEMOTIONS = "strata.worker.page.demotions";
  public static final String PROMOTIONS = "strata.worker.page.promotions";
  public static final String CHECKSUM_FAILURES = "strata.worker.page.checksum.failures";
  public static final String CACHE_BYTES_WRITTEN = "strata.worker.cache.bytes.written";

  /** Pages read from the UFS; a coalesced miss counts once. */
  public static final String UFS_PAGE_READS = "strata.worker.ufs.page.reads";

  /** Read requests made of the UFS; a run of pages read ahead in one request counts once. */
  public static final String UFS_READS = "strata.worker.ufs.reads";

  public static final String UFS_BYTES_READ = "strata.worker.ufs.bytes.read";
  public static final String DATA_READ_LATENCY = "strata.worker.data.read";
  public static final String DATA_CONNECTIONS = "strata.worker.data.connections";
  public static final String DATA_CONNECTIONS_REFUSED = "strata.worker.data.connections.refused";
  public static final String DATA_REQUESTS = "strata.worker.data.requests";
  public static final String LOAD_FILES = "strata.worker.load.files";
  public static final String LOAD_BYTES = "strata.worker.load.bytes";
  public static final String LOAD_THROTTLE = "strata.worker.load.throttle.bytes";

  /** Versions read whole from the UFS for a co-located reader's open (FUSE passthrough). */
  public static final String WHOLE_FETCHES = "strata.worker.whole.fetches";

  public static final String SHORT_CIRCUIT_LEASES = "strata.worker.short.circuit.leases";
  public static final String METADATA_REQUESTS = "strata.worker.metadata.requests";

  private WorkerMetrics() {}
}
