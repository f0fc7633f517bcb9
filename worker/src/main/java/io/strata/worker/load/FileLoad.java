package io.strata.worker.load;

import com.google.common.util.concurrent.RateLimiter;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.page.whole.WholeFileWriter;
import io.strata.worker.page.whole.WholeFiles;
import io.strata.worker.ufs.UfsManager;
import io.strata.worker.ufs.UfsPages;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * One file's load, in steps on a loader thread. Returns the bytes read from the UFS (pages already
 * cached are skipped). Consecutive pages to load are read in runs of up to
 * strata.worker.ufs.read.ahead, one UFS request each. The pages are cut by the length of the file
 * the reader opened, not by the status the job listed: a listing that says less must not cache
 * short pages under the file's fingerprint. A job with a pace of its own leaves the thread when the
 * pace says wait, and comes back on one when the wait is over.
 */
final class FileLoad {
  /** A listed file: where it is in the under-storage, and its pages' key. */
  record Target(UfsManager.Resolved file, PageId.FileKey key) {
    static Target of(UfsManager ufs, FileStatus f, long pageSize) {
      UfsManager.Resolved file = ufs.resolve(StrataPath.of(f.getPath()));
      return new Target(file, PageId.FileKey.of(file.ufsUri(), f.getFingerprint(), pageSize));
    }
  }

  /** What every load on a worker shares: its store, under-storages, limits and counters. */
  record Context(
      UfsManager ufs,
      PageStore store,
      long pageSize,
      ByteBufAllocator allocator,
      LongSupplier runBytes,
      Supplier<RateLimiter> throttle,
      Counter files,
      Counter bytes,
      Counter wholeFetches) {}

  private final Context c;
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

  /** Reading for {@link FileLoader#keepWhole}: the version is written whole or not at all. */
  private boolean wholeOnly;

  /** The first page not loaded yet. */
  private long next;

  /** The first page of the run whose bytes the pace has granted (-1: none yet). */
  private long paidFor = -1;

  private long loaded;

  FileLoad(
      Context c, FileStatus f, boolean force, boolean verify, Pace pace, long[] mark, Executor on) {
    this.c = c;
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
          target = Target.of(c.ufs(), f, c.pageSize());
        }
        reader = target.file().ufs().openVersion(target.file().ufsPath(), f.getFingerprint());
        fileLength = reader.length();
        pages = (fileLength + c.pageSize() - 1) / c.pageSize();
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
      int runPages = (int) Math.max(1, c.runBytes().getAsLong() / c.pageSize());
      while (next < pages) {
        long i = next;
        if (!force && whole == null && c.store().contains(key.page(i))) {
          next++;
          continue;
        }
        long end = i + 1;
        while (end < pages
            && end - i < runPages
            && (force || whole != null || !c.store().contains(key.page(end)))) {
          end++;
        }
        long length = Math.min(end * c.pageSize(), fileLength) - i * c.pageSize();
        if (pace != null && paidFor != i) {
          paidFor = i;
          long wait = pace.take(length);
          if (wait > 0) {
            CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS).execute(this::resume);
            return;
          }
        }
        RateLimiter workerWide = c.throttle().get();
        if (workerWide != null) {
          workerWide.acquire((int) length);
        }
        loadRun(key, i, end, runPages);
        next = end;
      }
      if (whole != null) {
        sealWhole(key);
      }
      (wholeOnly ? c.wholeFetches() : c.files()).increment();
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
            c.pageSize(),
            c.allocator(),
            () -> {
              if (!reader.currentFingerprint().equals(f.getFingerprint())) {
                throw changed(f);
              }
            });
    if (end < pages) {
      // The disk reads the next run while this one is checksummed and written: without the
      // hint it idled meanwhile, past the kernel's own read-ahead of 128 KiB.
      reader.willNeed(end * c.pageSize(), runPages * c.pageSize());
    }
    try {
      for (int k = 0; k < run.length; k++) {
        loaded += whole != null ? toWhole(i + k, run[k]) : admit(key.page(i + k), run[k]);
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
    WholeFiles wholes = c.store().wholeFiles();
    if (force) {
      wholes.remove(key);
    }
    if (!wholes.wanted(key, fileLength) || wholes.find(key).isPresent()) {
      return null;
    }
    WholeFileWriter w =
        wholes.begin(key, fileLength, Math.toIntExact(c.pageSize()), PageStore.wholeMark(mark));
    if (w != null) {
      c.store().versions().note(target.file().ufsUri(), f.getFingerprint(), f.getLength());
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
      c.bytes().increment(length);
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
    c.store().dropSegmentCopies(key, pages);
    if (verify && !c.store().wholeFiles().verify(key)) {
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

  /** Puts one loaded page in the store; its length. */
  private int admit(PageId id, ByteBuf page) {
    if (force) {
      c.store().remove(id);
    }
    c.store().versions().note(target.file().ufsUri(), f.getFingerprint(), f.getLength());
    if (!c.store().admitLoaded(id, page, mark)) {
      throw new StrataException(
          StatusCode.RESOURCE_EXHAUSTED,
          "no room for "
              + f.getPath()
              + " in this worker's cache ("
              + c.store().capacityBytes()
              + " bytes), full of what was cached since this load began");
    }
    if (verify) {
      readBack(id, page);
    }
    int length = page.readableBytes();
    c.bytes().increment(length);
    return length;
  }

  private static StrataException changed(FileStatus f) {
    return new StrataException(
        StatusCode.FAILED_PRECONDITION,
        f.getPath() + " changed in the under-storage while it was loaded");
  }

  /** Reads a loaded page back from the store and compares it with what was loaded. */
  private void readBack(PageId id, ByteBuf loaded) {
    String path = f.getPath();
    ByteBuf stored = c.store().getFromMemory(id);
    if (stored == null) {
      stored = c.store().readFromDisk(id);
    }
    if (stored == null) {
      throw new StrataException(
          StatusCode.INTERNAL, "verify: a page of " + path + " is not in the cache after loading");
    }
    try {
      if (crc(stored) != crc(loaded)) {
        c.store().remove(id);
        throw new StrataException(
            StatusCode.INTERNAL, "verify: a page of " + path + " reads back differently");
      }
    } finally {
      stored.release();
    }
  }

  private static long crc(ByteBuf b) {
    CRC32C sum = new CRC32C();
    sum.update(b.nioBuffer(b.readerIndex(), b.readableBytes()));
    return sum.getValue();
  }
}
