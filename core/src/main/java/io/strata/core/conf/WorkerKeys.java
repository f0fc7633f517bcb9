package io.strata.core.conf;

import java.time.Duration;
import java.util.List;

/** Keys of the worker process. */
public final class WorkerKeys {
  private WorkerKeys() {}

  public static final ConfKey<String> HOSTNAME =
      ConfKey.string("strata.worker.hostname")
          .defaultValue("localhost")
          .scope(Scope.WORKER)
          .description(
              "Host name the worker registers under; clients connect to it. Set it on every worker host.")
          .build();

  public static final ConfKey<String> BIND_HOST =
      ConfKey.string("strata.worker.bind.host")
          .defaultValue("127.0.0.1")
          .scope(Scope.WORKER)
          .description(
              "Address the worker's servers listen on (loopback by default; 0.0.0.0 or a host's address for a multi-host cluster, which needs strata.security.mode=TOKEN).")
          .build();

  public static final ConfKey<Integer> RPC_PORT =
      ConfKey.integer("strata.worker.rpc.port")
          .defaultValue("7710")
          .scope(Scope.WORKER)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port of the worker's gRPC service (metadata and writes).")
          .build();

  public static final ConfKey<Integer> DATA_PORT =
      ConfKey.integer("strata.worker.data.port")
          .defaultValue("7711")
          .scope(Scope.WORKER)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port of the worker's Netty data server (reads).")
          .build();

  public static final ConfKey<Integer> LEASE_MAX_PERCENT =
      ConfKey.integer("strata.worker.data.lease.max.percent")
          .defaultValue("50")
          .scope(Scope.WORKER)
          .dynamic()
          .check(n -> n >= 1 && n <= 100, "must be from 1 to 100")
          .description(
              "The most of the SSD tier one local user (uid) may hold pinned through short-circuit"
                  + " leases, percent of its segments: a pinned segment is never evicted. Pages"
                  + " beyond are read over the domain socket until the user's older leases expire.")
          .build();

  public static final ConfKey<Integer> DATA_MAX_CONNECTIONS =
      ConfKey.integer("strata.worker.data.max.connections")
          .defaultValue("4096")
          .scope(Scope.WORKER)
          .check(n -> n >= 1 && n <= 1_000_000, "must be from 1 to 1000000")
          .description(
              "Data connections (TCP and domain socket) a worker keeps at once. A quarter at most"
                  + " may not yet have proved a token (the oldest of those is closed when a new one"
                  + " needs room), a sixteenth is kept for the cluster's own processes; one with no"
                  + " room is closed as it arrives. Applies at start.")
          .build();

  public static final ConfKey<Duration> DATA_IDLE_TIMEOUT =
      ConfKey.duration("strata.worker.data.idle.timeout")
          .defaultValue("10min")
          .scope(Scope.WORKER)
          .check(d -> d.toMillis() >= 1000, "must be at least 1s")
          .description(
              "A data connection that neither sends a request nor takes a byte of its answers for "
                  + "this long is closed (an idle client's, or one that stopped reading). Applies at "
                  + "start.")
          .build();

  public static final ConfKey<Integer> DATA_IO_THREADS =
      ConfKey.integer("strata.worker.data.io.threads")
          .defaultValue("0")
          .scope(Scope.WORKER)
          .check(n -> n >= 0 && n <= 1024, "must be 0 to 1024")
          .description(
              "Event-loop threads of the data port (TCP and domain socket); 0: twice the processors "
                  + "(at least 4). A connection stays on the thread it was given, so with as many "
                  + "threads as cores a few busy streams can share one while another idles; more "
                  + "threads leave the balancing to the kernel's scheduler. Applies at start.")
          .build();

  public static final ConfKey<Long> DATA_SEND_BUFFER =
      ConfKey.bytes("strata.worker.data.send.buffer")
          .defaultValue("512KiB")
          .scope(Scope.WORKER)
          .check(b -> b >= 0 && b <= (64L << 20), "must be 0 to 64MiB")
          .description(
              "Socket send buffer of each data connection (SO_SNDBUF); 0 leaves it to the kernel's "
                  + "autotuning. Small enough that the bytes a reader takes are still in the CPU's cache (on loopback "
                  + "512KiB beat 4MiB by a third, see docs/performance.md); raise it for readers across links whose "
                  + "bandwidth times round trip exceeds it. Applies at start.")
          .build();

  public static final ConfKey<Integer> WEB_PORT =
      ConfKey.integer("strata.worker.web.port")
          .defaultValue("7712")
          .scope(Scope.WORKER)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port serving /metrics, /health and /stacks of the worker.")
          .build();

  public static final ConfKey<String> DOMAIN_SOCKET =
      ConfKey.string("strata.worker.data.domain.socket.path")
          .defaultValue("")
          .scope(Scope.WORKER)
          .description(
              "Unix domain socket the data server also listens on (clients on this host use it, and read "
                  + "cached pages straight from SSD through it); empty: TCP only. Keep it under 100 characters.")
          .build();

  public static final ConfKey<Long> PAGE_SIZE =
      ConfKey.bytes("strata.worker.page.size")
          .defaultValue("1MiB")
          .scope(Scope.WORKER)
          .check(
              n -> n >= 4096 && n <= 64L << 20 && Long.bitCount(n) == 1,
              "must be a power of two from 4KiB to 64MiB")
          .description("Size of a cached page: the unit of caching, eviction and UFS reads.")
          .build();

  public static final ConfKey<Long> MEM_SIZE =
      ConfKey.bytes("strata.worker.page.store.mem.size")
          .defaultValue("512MiB")
          .scope(Scope.WORKER)
          .check(b -> b >= 0 && b <= 1L << 40, "must be from 0 to 1TiB")
          .dynamic()
          .description(
              "Memory for cached pages (shared memory in strata.worker.page.store.mem.dir, else "
                  + "direct memory: then keep -XX:MaxDirectMemorySize above it). A smaller value set "
                  + "while running evicts down to it.")
          .build();

  public static final ConfKey<String> MEM_DIR =
      ConfKey.string("strata.worker.page.store.mem.dir")
          .defaultValue("/dev/shm")
          .scope(Scope.WORKER)
          .description(
              "A tmpfs folder where the memory tier keeps whole pages, in one file unlinked as soon "
                  + "as it is open (its memory goes back when the worker exits), so that they are "
                  + "sent by sendfile: over a domain socket the reader then copies each byte once, "
                  + "not twice. Empty, or a folder that cannot hold the file: direct memory. "
                  + "Applies at start.")
          .build();

  public static final ConfKey<Boolean> MEM_HUGE_PAGES =
      ConfKey.bool("strata.worker.page.store.mem.huge.pages")
          .defaultValue("true")
          .scope(Scope.WORKER)
          .description(
              "Whether the memory tier's file (strata.worker.page.store.mem.dir) is put in 2 MiB "
                  + "huge pages as it fills (MADV_COLLAPSE, Linux 6.1+; the system's transparent "
                  + "huge page setting for shared memory must not be deny): sendfile reads them "
                  + "faster than 4 KiB pages. Applies at start.")
          .build();

  public static final ConfKey<Duration> HEARTBEAT_INTERVAL =
      ConfKey.duration("strata.worker.heartbeat.interval")
          .defaultValue("1s")
          .scope(Scope.WORKER)
          .check(d -> d.toMillis() > 0, "must be positive")
          .description("How often the worker reports to the master.")
          .build();

  public static final ConfKey<Duration> METADATA_TTL =
      ConfKey.duration("strata.worker.metadata.cache.ttl")
          .defaultValue("1min")
          .scope(Scope.WORKER)
          .check(d -> !d.isNegative(), "must not be negative")
          .dynamic()
          .description(
              "How long a cached file status or directory listing is trusted before the UFS is asked again.")
          .build();

  public static final ConfKey<Duration> METADATA_NEGATIVE_TTL =
      ConfKey.duration("strata.worker.metadata.cache.negative.ttl")
          .defaultValue("5s")
          .scope(Scope.WORKER)
          .check(d -> !d.isNegative(), "must not be negative")
          .dynamic()
          .description("How long 'does not exist' is remembered for a path.")
          .build();

  public static final ConfKey<Long> METADATA_MAX_ENTRIES =
      ConfKey.longKey("strata.worker.metadata.cache.max.entries")
          .defaultValue("1000000")
          .scope(Scope.WORKER)
          .check(n -> n > 0, "must be positive")
          .description(
              "Most file statuses and listings held in the worker's in-memory metadata cache.")
          .build();

  public static final ConfKey<Boolean> UFS_WRITE_SYNC =
      ConfKey.bool("strata.worker.ufs.write.sync")
          .defaultValue("true")
          .scope(Scope.WORKER)
          .dynamic()
          .description(
              "Force a written file's bytes to the under-storage's device before publishing it under its name (off only where the store is durable without it).")
          .build();

  public static final ConfKey<Duration> UFS_TEMP_MAX_AGE =
      ConfKey.duration("strata.worker.ufs.temp.max.age")
          .defaultValue("1h")
          .scope(Scope.WORKER)
          .check(d -> d.toMinutes() >= 1, "must be at least a minute")
          .description(
              "A hidden temporary file of a write untouched this long is a killed writer's: removed when its folder is listed or deleted.")
          .build();

  public static final ConfKey<Long> UFS_READ_AHEAD =
      ConfKey.bytes("strata.worker.ufs.read.ahead")
          .defaultValue("16MiB")
          .scope(Scope.WORKER)
          .dynamic()
          .check(b -> b >= 0 && b <= (256L << 20), "must be between 0 and 256MiB")
          .description(
              "How far ahead of a reader that reads a file in order the worker reads it from the UFS, in runs of strata.worker.ufs.read.run. Below two pages: no read-ahead.")
          .build();

  public static final ConfKey<Long> UFS_READ_RUN =
      ConfKey.bytes("strata.worker.ufs.read.run")
          .defaultValue("8MiB")
          .scope(Scope.WORKER)
          .dynamic()
          .check(b -> b > 0 && b <= (64L << 20), "must be between 1 byte and 64MiB")
          .description(
              "The most the worker asks of the UFS in one request (a ranged GET, a pread) for consecutive pages: a read-ahead run, a distributedLoad's read.")
          .build();

  public static final ConfKey<Integer> LOAD_THREADS =
      ConfKey.integer("strata.worker.load.threads")
          .defaultValue("4")
          .scope(Scope.WORKER)
          .check(n -> n > 0, "must be positive")
          .description(
              "Files a worker loads at once for distributedLoad jobs (each read front to back from the UFS).")
          .build();

  public static final ConfKey<Long> LOAD_BANDWIDTH =
      ConfKey.bytes("strata.worker.load.bandwidth")
          .defaultValue("0")
          .scope(Scope.WORKER)
          .check(n -> n >= 0, "must not be negative")
          .dynamic()
          .description(
              "Most bytes per second this worker reads from the UFS for distributedLoad jobs, all jobs "
                  + "together (0: no limit besides each job's --bandwidth); lower it to throttle running loads.")
          .build();

  public static final ConfKey<Integer> DATA_READER_THREADS =
      ConfKey.integer("strata.worker.data.reader.threads")
          .defaultValue("32")
          .scope(Scope.WORKER)
          .check(n -> n > 0, "must be positive")
          .description(
              "Threads that read missed pages from the UFS; cache hits never wait for them.")
          .build();

  public static final ConfKey<Integer> RPC_THREADS =
      ConfKey.integer("strata.worker.rpc.threads")
          .defaultValue("16")
          .scope(Scope.WORKER)
          .check(n -> n > 0, "must be positive")
          .description("Threads serving the worker's gRPC requests (metadata look-ups and writes).")
          .build();

  /** Which pages read from the UFS enter the cache; see the key's description. */
  public enum AdmissionPolicy {
    ALWAYS,
    SECOND_MISS,
    NONE
  }

  /** How the memory tier picks pages to evict. */
  public enum MemPolicy {
    LRU,
    TINYLFU
  }

  public static final ConfKey<AdmissionPolicy> ADMISSION =
      ConfKey.enumKey("strata.worker.page.store.admission", AdmissionPolicy.class)
          .defaultValue("ALWAYS")
          .scope(Scope.WORKER)
          .dynamic()
          .description(
              "ALWAYS caches every page read from the UFS; SECOND_MISS only pages missed twice recently (a "
                  + "one-time scan then passes without flushing the cache); NONE serves misses without caching them.")
          .build();

  public static final ConfKey<MemPolicy> MEM_POLICY =
      ConfKey.enumKey("strata.worker.page.store.mem.policy", MemPolicy.class)
          .defaultValue("LRU")
          .scope(Scope.WORKER)
          .description(
              "Eviction in the memory tier: LRU (the CLOCK approximation) or TINYLFU (Caffeine's frequency-aware "
                  + "W-TinyLFU).")
          .build();

  public static final ConfKey<List<String>> PAGE_STORE_DIRS =
      ConfKey.list("strata.worker.page.store.dirs")
          .defaultValue("")
          .scope(Scope.WORKER)
          .check(PageStoreDirs::valid, PageStoreDirs.MESSAGE)
          .description(
              "SSD cache folders with their quotas, e.g. /mnt/nvme0/strata:200GiB,/mnt/nvme1/strata:200GiB; "
                  + "empty keeps the cache in memory only.")
          .build();

  public static final ConfKey<Long> SEGMENT_SIZE =
      ConfKey.bytes("strata.worker.page.store.segment.size")
          .defaultValue("64MiB")
          .scope(Scope.WORKER)
          .check(n -> n >= 64 * 1024 && n <= 1L << 30, "must be from 64KiB to 1GiB")
          .description(
              "Size of the segment files pages are appended to on SSD; eviction frees whole segments.")
          .build();

  public static final ConfKey<Integer> READMIT_PERCENT =
      ConfKey.integer("strata.worker.page.store.readmit.percent")
          .defaultValue("0")
          .scope(Scope.WORKER)
          .check(n -> n >= 0 && n <= 50, "must be from 0 to 50")
          .description(
              "When a segment is evicted, write again its pages read since, up to this share of its size.")
          .build();

  public static final ConfKey<Long> WHOLE_FILE_MIN_SIZE =
      ConfKey.bytes("strata.worker.page.store.whole.min.size")
          .defaultValue("16KiB")
          .scope(Scope.WORKER)
          .check(n -> n >= 0, "must not be negative")
          .description(
              "A file version at least this large that a load (or a passthrough mount's open) caches whole is kept on SSD as one plain file (the whole-file area, which FUSE can pass reads through to) instead of in segments. 16 KiB: below it a training loader's files cost the mount a READ and the worker a request each (docs/performance-log.md, 2026-12-07).")
          .build();

  public static final ConfKey<Integer> WHOLE_FILE_SHARE =
      ConfKey.integer("strata.worker.page.store.whole.share")
          .defaultValue("50")
          .scope(Scope.WORKER)
          .check(n -> n >= 0 && n <= 90, "must be from 0 to 90")
          .description(
              "Percent of each SSD folder's quota that whole files may take (the segments get the rest; 0: none are kept, loads write segments only).")
          .build();

  public static final ConfKey<Integer> PIN_CAPACITY_PERCENT =
      ConfKey.integer("strata.worker.pin.capacity.percent")
          .defaultValue("50")
          .scope(Scope.WORKER)
          .dynamic()
          .check(n -> n >= 0 && n <= 90, "must be from 0 to 90")
          .description(
              "The share of the worker's cache that pinned files (fs pin) may hold and keep from "
                  + "eviction; pinned files beyond it are cached but evicted like others.")
          .build();

  public static final ConfKey<Duration> POLICY_CHECK_INTERVAL =
      ConfKey.duration("strata.worker.policy.check.interval")
          .defaultValue("10s")
          .scope(Scope.WORKER)
          .check(d -> d.toMillis() > 0, "must be positive")
          .description(
              "How often the worker frees cached files whose TTL (fs setTtl) has passed and counts "
                  + "what it holds of pinned files; a change of pins or TTLs is applied at once.")
          .build();

  public static final ConfKey<String> STATE_FOLDER =
      ConfKey.string("strata.worker.state.folder")
          .defaultValue("${strata.home}/worker-state")
          .scope(Scope.WORKER)
          .description(
              "Folder of the worker's persistent metadata cache (RocksDB); one per worker.")
          .build();
}
