package io.strata.worker.load;

import com.github.benmanes.caffeine.cache.Cache;
import com.google.common.util.concurrent.RateLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.Caches;
import io.strata.core.util.Futures;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * Executes a distributedLoad task: reads each file of the batch from the UFS front to back (several
 * files at once, on the load executor) and writes its pages straight into the page store, skipping
 * pages already cached unless forced; with verify, reads every loaded page back from the store and
 * compares checksums. A file that fails is reported with its reason; the others go on.
 */
public final class FileLoader {
  /** How far ahead of its loaders a batch's small files are read, in runs. */
  private static final int SMALL_FILES_AHEAD = 8;

  private final UfsManager ufs;
  private final PageStore store;
  private final long pageSize;
  private final Executor executor;
  private final Executor limitedExecutor;
  private final LongSupplier runBytes;

  /** The worker-wide throttle (strata.worker.load.bandwidth), null when unlimited. */
  private volatile RateLimiter throttle;

  private final Cache<Long, Pace> jobLimits =
      Caches.builder().expireAfterAccess(Duration.ofMinutes(10)).maximumSize(1024).build();

  /**
   * Where each SSD folder wrote when a job's first batch arrived here: the job never evicts what it
   * loaded after that, so that a data set larger than the cache fails its files with a reason
   * rather than report success for pages it evicted itself (what others cached meanwhile is kept
   * too).
   */
  private final Cache<Long, long[]> jobMarks =
      Caches.builder().expireAfterAccess(Duration.ofMinutes(10)).maximumSize(1024).build();

  /** Versions being read whole for {@link #keepWhole}, each once however many ask. */
  private final Map<PageId.FileKey, CompletableFuture<Boolean>> keeping = new ConcurrentHashMap<>();

  /** What each file's load is given. */
  private final FileLoad.Context loads;

  public FileLoader(
      UfsManager ufs,
      PageStore store,
      long pageSize,
      ByteBufAllocator allocator,
      Executor executor,
      Executor limitedExecutor,
      MeterRegistry registry,
      LongSupplier runBytes) {
    this.ufs = ufs;
    this.runBytes = runBytes;
    this.store = store;
    this.pageSize = pageSize;
    this.executor = executor;
    this.limitedExecutor = limitedExecutor;
    this.loads =
        new FileLoad.Context(
            ufs,
            store,
            pageSize,
            allocator,
            runBytes,
            () -> throttle,
            Counter.builder(WorkerMetrics.LOAD_FILES)
                .description("Files loaded for distributedLoad jobs")
                .register(registry),
            Counter.builder(WorkerMetrics.LOAD_BYTES)
                .description("Bytes read from the UFS into the cache for distributedLoad jobs")
                .register(registry),
            Counter.builder(WorkerMetrics.WHOLE_FETCHES)
                .description(
                    "Versions read whole from the UFS into the whole-file area for a co-located"
                        + " reader's open")
                .register(registry));
    io.micrometer.core.instrument.Gauge.builder(
            WorkerMetrics.LOAD_THROTTLE, this, FileLoader::throttle)
        .description("The worker-wide limit on load reads, bytes per second (0: none)")
        .register(registry);
  }

  /**
   * Bytes per second for all loads on this worker together; 0 lifts the limit. Takes effect at
   * once.
   */
  public void setThrottle(long bytesPerSecond) {
    RateLimiter current = throttle;
    if (bytesPerSecond <= 0) {
      throttle = null;
    } else if (current == null) {
      throttle = RateLimiter.create((double) bytesPerSecond);
    } else {
      current.setRate((double) bytesPerSecond);
    }
  }

  /** The worker-wide throttle in bytes per second; 0 when unlimited. */
  public long throttle() {
    RateLimiter t = throttle;
    return t == null ? 0 : (long) t.getRate();
  }

  public CompletableFuture<LoadFilesResponse> load(LoadFilesRequest req) {
    Pace pace = jobPace(req.getJobId(), req.getBandwidthBytes());
    long[] mark = jobMarks.get(req.getJobId(), id -> store.mark());
    if (pace == null && throttle == null) {
      // First in the executor's queue, so the reads it starts run while the loaders begin. Not
      // under a bandwidth limit: those reads would come before the limit is asked.
      executor.execute(() -> startReadingSmallFiles(req.getFilesList(), req.getForce()));
    }
    // A job with a limit of its own runs on threads of its kind, and leaves them while its pace
    // says wait: slow jobs (any user may ask for 1 KiB/s) hold up neither the loads without a
    // limit nor each other (issue 78).
    Executor on = pace == null ? executor : limitedExecutor;
    List<CompletableFuture<LoadFileResult>> results = new ArrayList<>();
    for (FileStatus f : req.getFilesList()) {
      results.add(new FileLoad(loads, f, req.getForce(), req.getVerify(), pace, mark, on).start());
    }
    return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              LoadFilesResponse.Builder b = LoadFilesResponse.newBuilder();
              results.forEach(r -> b.addResults(r.join()));
              return b.build();
            });
  }

  /**
   * Keeps the version {@code key} of {@code file} whole on disk for a reader on this host that will
   * read the plain file itself: reads it from the UFS front to back into its whole file and seals
   * it, unless it is whole already. Completes true once sealed (or found sealed), false when it is
   * not one to keep whole (below the area's least size, beyond its share, no room, a load writing
   * it now); exceptionally when it cannot be read (missing, changed since {@code fingerprint}). Its
   * room is made by evicting the least recently used whole files, as a read makes room for its
   * pages: unlike a load's, nothing sealed since is kept from eviction.
   */
  public CompletableFuture<Boolean> keepWhole(
      UfsManager.Resolved file, PageId.FileKey key, String fingerprint, long length) {
    if (store.wholeFiles().find(key).isPresent()) {
      return CompletableFuture.completedFuture(true);
    }
    if (!store.wholeFiles().wanted(key, length)) {
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<Boolean> mine = new CompletableFuture<>();
    CompletableFuture<Boolean> running = keeping.putIfAbsent(key, mine);
    if (running != null) {
      return running;
    }
    FileStatus f =
        FileStatus.newBuilder()
            .setPath(file.path().toString())
            .setFingerprint(fingerprint)
            .setLength(length)
            .build();
    long[] evictAny = store.mark();
    Arrays.fill(evictAny, Long.MAX_VALUE);
    FileLoad load = new FileLoad(loads, f, false, false, null, evictAny, executor);
    load.wholeOnly(new FileLoad.Target(file, key));
    CompletableFuture<LoadFileResult> done;
    try {
      done = load.start();
    } catch (RejectedExecutionException e) {
      keeping.remove(key, mine);
      mine.completeExceptionally(StrataException.unavailable("the worker is stopping", e));
      return mine;
    }
    Futures.onDone(
        done,
        (r, error) -> {
          keeping.remove(key, mine);
          if (error != null) {
            mine.completeExceptionally(error);
          } else if (r.getOk()) {
            mine.complete(store.wholeFiles().find(key).isPresent());
          } else if (r.getCode() == StatusCode.RESOURCE_EXHAUSTED.number()) {
            // Whole already if a load sealed it meanwhile.
            mine.complete(store.wholeFiles().find(key).isPresent());
          } else {
            mine.completeExceptionally(
                new StrataException(StatusCode.fromNumber(r.getCode()), r.getError()));
          }
        });
    return mine;
  }

  /**
   * Asks the under-storage to start reading the batch's small files (one run or less each, up to
   * {@link #SMALL_FILES_AHEAD} runs in all) that are not cached yet. A small file is one read, and
   * four loader threads waiting on one each kept four reads in flight where the disk takes many.
   */
  private void startReadingSmallFiles(List<FileStatus> batch, boolean force) {
    long run = runBytes.getAsLong();
    long budget = SMALL_FILES_AHEAD * run;
    for (FileStatus f : batch) {
      if (f.getLength() == 0 || f.getLength() > run) {
        continue;
      }
      budget -= f.getLength();
      if (budget < 0) {
        return;
      }
      try {
        FileLoad.Target t = FileLoad.Target.of(ufs, f, pageSize);
        if (force || !store.contains(t.key().page(0))) {
          t.file().ufs().willNeed(t.file().ufsPath(), f.getLength());
        }
      } catch (RuntimeException e) {
        // Only a hint: the file's load reports what is wrong with it.
      }
    }
  }

  /**
   * One pace per job, shared by all of its batches in flight here; null when the job has no limit.
   */
  private Pace jobPace(long jobId, long bytesPerSecond) {
    if (bytesPerSecond <= 0) {
      return null;
    }
    Pace pace = jobLimits.get(jobId, id -> new Pace(bytesPerSecond, System::nanoTime));
    if (pace.bytesPerSecond() != bytesPerSecond) {
      // The job's share of this worker changes as workers come and go.
      pace.setBytesPerSecond(bytesPerSecond);
    }
    return pace;
  }
}
