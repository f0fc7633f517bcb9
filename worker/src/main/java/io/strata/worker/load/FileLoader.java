package io.strata.worker.load;

import com.github.benmanes.caffeine.cache.Cache;
import com.google.common.util.concurrent.RateLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import io.strata.core.util.Caches;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import io.strata.worker.ufs.UfsPages;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

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
  private final ByteBufAllocator allocator;
  private final Executor executor;
  private final Executor limitedExecutor;
  private final LongSupplier runBytes;

  /** The worker-wide throttle (strata.worker.load.bandwidth), null when unlimited. */
  private volatile RateLimiter throttle;

  private final Cache<Long, RateLimiter> jobLimits =
      Caches.builder().expireAfterAccess(Duration.ofMinutes(10)).maximumSize(1024).build();

  /**
   * Where each SSD folder wrote when a job's first batch arrived here: the job never evicts what it
   * loaded after that, so that a data set larger than the cache fails its files with a reason
   * rather than report success for pages it evicted itself (what others cached meanwhile is kept
   * too).
   */
  private final Cache<Long, long[]> jobMarks =
      Caches.builder().expireAfterAccess(Duration.ofMinutes(10)).maximumSize(1024).build();

  private final Counter files;
  private final Counter bytes;

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
    this.allocator = allocator;
    this.executor = executor;
    this.limitedExecutor = limitedExecutor;
    this.files =
        Counter.builder(WorkerMetrics.LOAD_FILES)
            .description("Files loaded for distributedLoad jobs")
            .register(registry);
    this.bytes =
        Counter.builder(WorkerMetrics.LOAD_BYTES)
            .description("Bytes read from the UFS into the cache for distributedLoad jobs")
            .register(registry);
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
    RateLimiter limiter = jobLimiter(req.getJobId(), req.getBandwidthBytes());
    long[] mark = jobMarks.get(req.getJobId(), id -> store.mark());
    if (limiter == null && throttle == null) {
      // First in the executor's queue, so the reads it starts run while the loaders begin. Not
      // under a bandwidth limit: those reads would come before the limit is asked.
      executor.execute(() -> startReadingSmallFiles(req.getFilesList(), req.getForce()));
    }
    // A job with a limit of its own waits in its limiter on a loader thread, page after page: on
    // threads of their own, so that slow jobs (any user may ask for 1 KiB/s) hold up only each
    // other, never the loads without one (issue 78).
    Executor on = limiter == null ? executor : limitedExecutor;
    List<CompletableFuture<LoadFileResult>> results = new ArrayList<>();
    for (FileStatus f : req.getFilesList()) {
      results.add(
          CompletableFuture.supplyAsync(
              () -> loadOne(f, req.getForce(), req.getVerify(), limiter, mark), on));
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
        Target t = target(f);
        if (force || !store.contains(t.key().page(0))) {
          t.file().ufs().willNeed(t.file().ufsPath(), f.getLength());
        }
      } catch (RuntimeException e) {
        // Only a hint: the file's load reports what is wrong with it.
      }
    }
  }

  /** A listed file: where it is in the under-storage, and its pages' key. */
  private record Target(UfsManager.Resolved file, PageId.FileKey key) {}

  private Target target(FileStatus f) {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of(f.getPath()));
    return new Target(file, PageId.FileKey.of(file.ufsUri(), f.getFingerprint(), pageSize));
  }

  /**
   * One limiter per job, shared by all of its batches in flight here; null when the job has no
   * limit.
   */
  private RateLimiter jobLimiter(long jobId, long bytesPerSecond) {
    if (bytesPerSecond <= 0) {
      return null;
    }
    RateLimiter limiter = jobLimits.get(jobId, id -> RateLimiter.create((double) bytesPerSecond));
    if ((long) limiter.getRate() != bytesPerSecond) {
      // The job's share of this worker changes as workers come and go.
      limiter.setRate((double) bytesPerSecond);
    }
    return limiter;
  }

  private LoadFileResult loadOne(
      FileStatus f, boolean force, boolean verify, RateLimiter limiter, long[] mark) {
    LoadFileResult.Builder r = LoadFileResult.newBuilder().setPath(f.getPath());
    try {
      r.setBytesLoaded(loadPages(f, force, verify, limiter, mark)).setOk(true);
      files.increment();
    } catch (StrataException e) {
      r.setOk(false).setCode(e.code().number()).setError(e.getMessage());
    } catch (IOException | RuntimeException e) {
      r.setOk(false)
          .setCode(StatusCode.UNAVAILABLE.number())
          .setError(String.valueOf(e.getMessage()));
    }
    return r.build();
  }

  /**
   * Returns the bytes read from the UFS (pages already cached are skipped). Consecutive pages to
   * load are read in runs of up to strata.worker.ufs.read.ahead, one UFS request each. The pages
   * are cut by the length of the file the reader opened, not by the status the job listed: a
   * listing that says less must not cache short pages under the file's fingerprint.
   */
  private long loadPages(
      FileStatus f, boolean force, boolean verify, RateLimiter limiter, long[] mark)
      throws IOException {
    Target t = target(f);
    UfsManager.Resolved file = t.file();
    PageId.FileKey key = t.key();
    int runPages = (int) Math.max(1, runBytes.getAsLong() / pageSize);
    long loaded = 0;
    try (UfsReader reader = file.ufs().openVersion(file.ufsPath(), f.getFingerprint())) {
      long fileLength = reader.length();
      long pages = (fileLength + pageSize - 1) / pageSize;
      long i = 0;
      while (i < pages) {
        if (!force && store.contains(key.page(i))) {
          i++;
          continue;
        }
        long end = i + 1;
        while (end < pages && end - i < runPages && (force || !store.contains(key.page(end)))) {
          end++;
        }
        long length = Math.min(end * pageSize, fileLength) - i * pageSize;
        if (limiter != null) {
          limiter.acquire((int) length);
        }
        RateLimiter workerWide = throttle;
        if (workerWide != null) {
          workerWide.acquire((int) length);
        }
        ByteBuf[] run =
            UfsPages.read(
                reader,
                i,
                (int) (end - i),
                pageSize,
                allocator,
                () -> {
                  if (!reader.currentFingerprint().equals(f.getFingerprint())) {
                    throw changed(f);
                  }
                });
        if (end < pages) {
          // The disk reads the next run while this one is checksummed and written: without the
          // hint it idled meanwhile, past the kernel's own read-ahead of 128 KiB.
          reader.willNeed(end * pageSize, runPages * pageSize);
        }
        try {
          for (int k = 0; k < run.length; k++) {
            loaded += admit(key.page(i + k), run[k], f, file, force, verify, mark);
          }
        } finally {
          for (ByteBuf page : run) {
            page.release();
          }
        }
        i = end;
      }
    }
    return loaded;
  }

  /** Puts one loaded page in the store; its length. */
  private int admit(
      PageId id,
      ByteBuf page,
      FileStatus f,
      UfsManager.Resolved file,
      boolean force,
      boolean verify,
      long[] mark) {
    if (force) {
      store.remove(id);
    }
    store.versions().note(file.ufsUri(), f.getFingerprint(), f.getLength());
    if (!store.admitLoaded(id, page, mark)) {
      throw new StrataException(
          StatusCode.RESOURCE_EXHAUSTED,
          "no room for "
              + f.getPath()
              + " in this worker's cache ("
              + store.capacityBytes()
              + " bytes), full of what was cached since this load began");
    }
    if (verify) {
      verify(id, page, f.getPath());
    }
    int length = page.readableBytes();
    bytes.increment(length);
    return length;
  }

  private static StrataException changed(FileStatus f) {
    return new StrataException(
        StatusCode.FAILED_PRECONDITION,
        f.getPath() + " changed in the under-storage while it was loaded");
  }

  private void verify(PageId id, ByteBuf loaded, String path) {
    ByteBuf stored = store.getFromMemory(id);
    if (stored == null) {
      stored = store.readFromDisk(id);
    }
    if (stored == null) {
      throw new StrataException(
          StatusCode.INTERNAL, "verify: a page of " + path + " is not in the cache after loading");
    }
    try {
      if (crc(stored) != crc(loaded)) {
        store.remove(id);
        throw new StrataException(
            StatusCode.INTERNAL, "verify: a page of " + path + " reads back differently");
      }
    } finally {
      stored.release();
    }
  }

  private static long crc(ByteBuf b) {
    CRC32C c = new CRC32C();
    c.update(b.nioBuffer(b.readerIndex(), b.readableBytes()));
    return c.getValue();
  }
}
