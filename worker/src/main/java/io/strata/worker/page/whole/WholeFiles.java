package io.strata.worker.page.whole;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Periodic;
import io.strata.worker.page.PageId;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole-file areas of a worker's SSD folders, one per folder: which one keeps a version (by its
 * key), the share of its folder's quota whole files may take, reads of pages from them, and their
 * upkeep (sync, reap, scrub). Thread-safe.
 */
public final class WholeFiles implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WholeFiles.class);

  /**
   * How the areas are kept: the least size worth a whole file, and each area's most bytes now (its
   * share of what its folder may hold, which shrinks with its disk's free room).
   */
  public record Rules(long minSize, List<LongSupplier> limits) {}

  private final List<WholeFileArea> areas;
  private final Rules rules;
  private final ByteBufAllocator allocator;
  private final java.util.concurrent.atomic.AtomicLong sealed;
  private final FileStore[] stores;
  private ScheduledExecutorService upkeeper;
  private int scrubArea;
  private int scrubFile;

  public WholeFiles(List<WholeFileArea> areas, Rules rules, ByteBufAllocator allocator) {
    if (rules.limits().size() != areas.size()) {
      throw new IllegalArgumentException(areas.size() + " areas, " + rules.limits().size());
    }
    this.areas = List.copyOf(areas);
    this.rules = rules;
    this.allocator = allocator;
    this.sealed = new java.util.concurrent.atomic.AtomicLong();
    this.stores = new FileStore[areas.size()];
    areas.forEach(a -> a.sealCounter(sealed));
  }

  /** A worker without SSD folders, or whose share for whole files is 0. */
  public static WholeFiles none() {
    return new WholeFiles(List.of(), new Rules(Long.MAX_VALUE, List.of()), null);
  }

  /**
   * The areas' folders in the order a version's key picks one ({@link
   * io.strata.core.cache.VersionKey#wholeFile}): what a co-located client looks a file up in.
   */
  public List<Path> folders() {
    return areas.stream().map(WholeFileArea::dir).toList();
  }

  /** Whether a version of {@code length} bytes is one to keep whole. */
  public boolean wanted(PageId.FileKey key, long length) {
    return !areas.isEmpty()
        && length >= rules.minSize()
        && length <= rules.limits().get(indexOf(key)).getAsLong();
  }

  /** Where the seals are now: files sealed past this mark can be kept from eviction. */
  public long mark() {
    return sealed.get();
  }

  /**
   * A writer for the version {@code key} once its area has room for it (the least recently used
   * files that no reader holds and were sealed by the mark {@code keepAfter} are evicted for it);
   * null if it has none, or another writer of the version is open.
   */
  public WholeFileWriter begin(PageId.FileKey key, long length, int pageSize, long keepAfter)
      throws IOException {
    if (!wanted(key, length)) {
      return null;
    }
    int i = indexOf(key);
    WholeFileArea area = areas.get(i);
    long limit = rules.limits().get(i).getAsLong();
    area.evictTo(limit - length, keepAfter);
    if (area.used() + length > limit || usableSpace(i) < length) {
      return null;
    }
    return area.begin(key, length, pageSize);
  }

  /**
   * The free room of area {@code i}'s file system. Its FileStore is found once: finding it reads
   * the mount table, which cost a cold open's fetch more than its statfs.
   */
  private long usableSpace(int i) throws IOException {
    FileStore store = stores[i];
    if (store == null) {
      store = Files.getFileStore(areas.get(i).dir());
      stores[i] = store;
    }
    return store.getUsableSpace();
  }

  public boolean holds(PageId id) {
    return !areas.isEmpty() && areaOf(id.keyHigh(), id.keyLow()).holds(id);
  }

  /** The page from its whole file, crc checked, in a new buffer; null if none holds it intact. */
  public ByteBuf readPage(PageId id) {
    if (areas.isEmpty()) {
      return null;
    }
    try {
      return areaOf(id.keyHigh(), id.keyLow()).readPage(id, allocator);
    } catch (IOException e) {
      LOG.warn("cannot read page {} from its whole file: {}", id, e.toString());
      return null;
    }
  }

  public Optional<WholeFile> find(PageId.FileKey key) {
    return areas.isEmpty() ? Optional.empty() : areas.get(indexOf(key)).find(key);
  }

  /** Reads the version's file back against its crcs; false (and demoted) if it fails. */
  public boolean verify(PageId.FileKey key) throws IOException {
    return !areas.isEmpty() && areas.get(indexOf(key)).verify(key);
  }

  /** Keeps the version's file until {@code untilNanos}; false if none is held. */
  public boolean lease(PageId.FileKey key, long untilNanos) {
    return !areas.isEmpty() && areas.get(indexOf(key)).lease(key, untilNanos);
  }

  /** Drops the version's file (when its lease ends, if one holds it); the bytes freed now. */
  public long remove(PageId.FileKey key) {
    if (areas.isEmpty()) {
      return 0;
    }
    try {
      return areas.get(indexOf(key)).remove(key);
    } catch (IOException e) {
      LOG.warn("cannot remove the whole file of {}: {}", key, e.toString());
      return 0;
    }
  }

  /** The indexes of the version's pages its whole file holds (all of them, or none). */
  public LongStream heldIndexes(PageId.FileKey key) {
    return find(key).map(f -> LongStream.range(0, f.pages())).orElse(LongStream.empty());
  }

  /** Bytes the area of SSD folder {@code folder} holds. */
  public long used(int folder) {
    return areas.isEmpty() ? 0 : areas.get(folder).used();
  }

  public long files() {
    return areas.stream().mapToLong(WholeFileArea::count).sum();
  }

  /**
   * Runs {@link #upkeep} every {@code period} on a thread of its own (an fsync or a scrub's reads
   * must not hold up the worker's heartbeat), until {@link #close}.
   */
  public synchronized void startUpkeep(Duration period) {
    if (areas.isEmpty() || upkeeper != null) {
      return;
    }
    upkeeper = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("whole-files"));
    long ms = period.toMillis();
    Periodic.every(upkeeper, "whole-file upkeep", ms, ms, TimeUnit.MILLISECONDS, this::upkeep);
  }

  /**
   * One round of upkeep: makes what was sealed since the last round durable, deletes what waited
   * for a lease to end, and scrubs one file (one per round, all in turn).
   */
  public void upkeep() {
    for (WholeFileArea a : areas) {
      try {
        a.syncPending();
        a.reap();
      } catch (IOException e) {
        LOG.warn("whole files of {}: upkeep failed: {}", a.dir(), e.toString());
      }
    }
    scrubOne();
  }

  private synchronized void scrubOne() {
    for (int tries = 0; tries < areas.size(); tries++) {
      WholeFileArea a = areas.get(scrubArea % areas.size());
      List<PageId.FileKey> keys = a.keys();
      if (scrubFile < keys.size()) {
        try {
          a.verify(keys.get(scrubFile++));
        } catch (IOException e) {
          LOG.warn("whole files of {}: scrub failed: {}", a.dir(), e.toString());
        }
        return;
      }
      scrubArea++;
      scrubFile = 0;
    }
  }

  private WholeFileArea areaOf(long high, long low) {
    return areas.get(indexOf(new PageId.FileKey(high, low)));
  }

  private int indexOf(PageId.FileKey key) {
    return key.version().folder(areas.size());
  }

  @Override
  public void close() {
    synchronized (this) {
      if (upkeeper != null) {
        upkeeper.shutdownNow();
      }
    }
    areas.forEach(WholeFileArea::close);
  }
}
