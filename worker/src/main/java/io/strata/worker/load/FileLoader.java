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
import io.strata.core.util.Futures;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.page.whole.WholeFileWriter;
import io.strata.worker.page.whole.WholeFiles;
import io.strata.worker.ufs.UfsManager;
import io.strata.worker.ufs.UfsPages;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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

  private final Counter files;
  private final Counter bytes;
  private final Counter wholeFetches;

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
    this.wholeFetches =
        Counter.builder(WorkerMetrics.WHOLE_FETCHES)
            .description(
                "Versions read whole from the UFS into the whole-file area for a co-located"
                    + " reader's open")
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
      results.add(new FileLoad(f, req.getForce(), req.getVerify(), pace, mark, on).start());
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
    java.util.Arrays.fill(evictAny, Long.MAX_VALUE);
    FileLoad load = new FileLoad(f, false, false, null, evictAny, executor);
    load.wholeOnly(new Target(file, key));
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

  /**
   * One file's load, in steps on a loader thread. Returns the bytes read from the UFS (pages
   * already cached are skipped). Consecutive pages to load are read in runs of up to
   * strata.worker.ufs.read.ahead, one UFS request each. The pages are cut by the length of the file
   * the reader opened, not by the status the job listed: a listing that says less must not cache
   * short pages under the file's fingerprint. A job with a pace of its own leaves the thread when
   * the pace says wait, and comes back on one when the wait is over.
   */
  private final class FileLoad {
    private final FileStatus f;
    private final boolean force;
    private final boolean verify;
    private final Pace pace;
    private final long[] mark;
    private final Executor on;
    private final CompletableFuture<LoadFileResult> result = new CompletableFuture<>();
    private Target target;
    private UfsReader reader;
    private long fileLength;
    private long pages;

    /** Where the pages go when the version is kept as one whole file (null: to segments). */
    private WholeFileWriter whole;

    /** Reading for {@link #keepWhole}: the version is written whole or not at all. */
    private boolean wholeOnly;

    /** The first page not loaded yet. */
    private long next;

    /** The first page of the run whose bytes the pace has granted (-1: none yet). */
    private long paidFor = -1;

    private long loaded;

    FileLoad(FileStatus f, boolean force, boolean verify, Pace pace, long[] mark, Executor on) {
      this.f = f;
      this.force = force;
      this.verify = verify;
      this.pace = pace;
      this.mark = mark;
      this.on = on;
    }

    /** Writes the version whole or not at all, {@code target} being its file and key. */
    void wholeOnly(Target target) {
      this.wholeOnly = true;
      this.target = target;
    }

    CompletableFuture<LoadFileResult> start() {
      on.execute(this::step);
      return result;
    }

    private void step() {
      try {
        if (reader == null) {
          if (target == null) {
            target = target(f);
          }
          reader = target.file().ufs().openVersion(target.file().ufsPath(), f.getFingerprint());
          fileLength = reader.length();
          pages = (fileLength + pageSize - 1) / pageSize;
          whole = beginWhole(target.key());
          if (whole == null && wholeOnly) {
            finish(
                LoadFileResult.newBuilder()
                    .setOk(false)
                    .setCode(StatusCode.RESOURCE_EXHAUSTED.number())
                    .setError("not kept whole: no room, or written whole by a load now"));
            return;
          }
        }
        PageId.FileKey key = target.key();
        int runPages = (int) Math.max(1, runBytes.getAsLong() / pageSize);
        while (next < pages) {
          long i = next;
          if (!force && whole == null && store.contains(key.page(i))) {
            next++;
            continue;
          }
          long end = i + 1;
          while (end < pages
              && end - i < runPages
              && (force || whole != null || !store.contains(key.page(end)))) {
            end++;
          }
          long length = Math.min(end * pageSize, fileLength) - i * pageSize;
          if (pace != null && paidFor != i) {
            paidFor = i;
            long wait = pace.take(length);
            if (wait > 0) {
              CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS).execute(this::resume);
              return;
            }
          }
          RateLimiter workerWide = throttle;
          if (workerWide != null) {
            workerWide.acquire((int) length);
          }
          loadRun(key, i, end, runPages);
          next = end;
        }
        if (whole != null) {
          sealWhole(key);
        }
        (wholeOnly ? wholeFetches : files).increment();
        finish(LoadFileResult.newBuilder().setBytesLoaded(loaded).setOk(true));
      } catch (StrataException e) {
        finish(
            LoadFileResult.newBuilder()
                .setOk(false)
                .setCode(e.code().number())
                .setError(e.getMessage()));
      } catch (IOException | RuntimeException e) {
        finish(
            LoadFileResult.newBuilder()
                .setOk(false)
                .setCode(StatusCode.UNAVAILABLE.number())
                .setError(String.valueOf(e.getMessage())));
      }
    }

    /** Back on a loader thread after a wait for the pace. */
    private void resume() {
      try {
        on.execute(this::step);
      } catch (RejectedExecutionException e) {
        finish(
            LoadFileResult.newBuilder()
                .setOk(false)
                .setCode(StatusCode.UNAVAILABLE.number())
                .setError("the worker is stopping"));
      }
    }

    private void loadRun(PageId.FileKey key, long i, long end, int runPages) throws IOException {
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
          loaded +=
              whole != null
                  ? toWhole(i + k, run[k])
                  : admit(key.page(i + k), run[k], f, target.file(), force, verify, mark);
        }
      } finally {
        for (ByteBuf page : run) {
          page.release();
        }
      }
    }

    /**
     * A writer of the version's whole file, if it is one to keep whole and not kept yet (a version
     * already whole is loaded as any other: its pages are found cached, or reloaded by force).
     */
    private WholeFileWriter beginWhole(PageId.FileKey key) throws IOException {
      WholeFiles wholes = store.wholeFiles();
      if (force) {
        wholes.remove(key);
      }
      if (!wholes.wanted(key, fileLength) || wholes.find(key).isPresent()) {
        return null;
      }
      WholeFileWriter w =
          wholes.begin(key, fileLength, Math.toIntExact(pageSize), PageStore.wholeMark(mark));
      if (w != null) {
        store.versions().note(target.file().ufsUri(), f.getFingerprint(), f.getLength());
      }
      return w;
    }

    private int toWhole(long index, ByteBuf page) throws IOException {
      if (!whole.write(index, page)) {
        throw new StrataException(
            StatusCode.FAILED_PRECONDITION,
            f.getPath()
                + " changed in the under-storage while it was loaded (a page of "
                + page.readableBytes()
                + " bytes)");
      }
      int length = page.readableBytes();
      if (!wholeOnly) {
        bytes.increment(length);
      }
      return length;
    }

    /**
     * Seals the whole file written, then drops the segments' copies of its pages (a page cached
     * before the load was read again into the file: one sequential write of the whole version).
     */
    private void sealWhole(PageId.FileKey key) throws IOException {
      if (whole.seal().isEmpty()) {
        throw new StrataException(
            StatusCode.INTERNAL, "the whole file of " + f.getPath() + " could not be sealed");
      }
      store.dropSegmentCopies(key, pages);
      if (verify && !store.wholeFiles().verify(key)) {
        throw new StrataException(
            StatusCode.INTERNAL, "verify: " + f.getPath() + " reads back differently");
      }
    }

    private void finish(LoadFileResult.Builder r) {
      if (whole != null) {
        try {
          whole.close();
        } catch (IOException e) {
          // An unsealed part not deleted now is deleted at the next start.
        }
      }
      if (reader != null) {
        try {
          reader.close();
        } catch (IOException e) {
          // Read to the end already, or failed for another reason reported here.
        }
      }
      result.complete(r.setPath(f.getPath()).build());
    }
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
