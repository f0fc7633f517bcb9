package io.strata.worker.page.whole;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.util.FileChannels;
import io.strata.core.util.OwnerOnly;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import io.strata.worker.page.PageId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole-file area of one SSD cache folder ({@code <dir>/whole/}): fully cached file versions,
 * each one plain file named by its key, so that the kernel can read one itself (FUSE passthrough
 * needs one backing file per inode, at the version's own offsets: a segment holding pages of many
 * files cannot be one).
 *
 * <p>A file is <b>sealed</b> once: written sequentially beside its final name, each page's crc32c
 * taken from the bytes written, renamed into place, then indexed. There is no fsync per file: the
 * index says whether the last {@link #syncPending sync} covered a file's bytes, and at start
 * ({@link WholeFileRecovery}) a file it did not cover is read back against its crcs before it is
 * served again, so a crash leaves no torn file to serve. {@link #verify} (the scrub) checks a file
 * the same way later; one that fails is <b>demoted</b>: unindexed and deleted.
 *
 * <p>A reader outside the worker (a FUSE mount passing reads through to the file) holds a {@link
 * #lease}: a leased file is neither evicted nor deleted until the lease ends; a removal asked for
 * meanwhile takes effect at {@link #reap}. Thread-safe.
 */
public final class WholeFileArea implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WholeFileArea.class);

  /** The bytes of a version's pages, in order. */
  @FunctionalInterface
  public interface PageSource {
    /**
     * Page {@code index} of the version with a reference for the caller (who releases it); null if
     * it is not cached (the seal is then abandoned).
     */
    ByteBuf page(long index) throws IOException;
  }

  private final Path dir;
  private final KvStore index;
  private final LongSupplier nanoTime;
  private final Map<PageId.FileKey, Held> files = new ConcurrentHashMap<>();
  private final Set<PageId.FileKey> sealing = ConcurrentHashMap.newKeySet();
  private final Set<PageId.FileKey> unsynced = ConcurrentHashMap.newKeySet();
  private final AtomicLong used = new AtomicLong();

  /** Bytes of the parts being written: the folder's too, though nothing is served of them yet. */
  private final AtomicLong partBytes = new AtomicLong();

  private volatile AtomicLong seals = new AtomicLong();

  /** A sealed file and what the worker knows of its use. */
  private static final class Held {
    final WholeFile file;
    volatile long lastUsedNanos;
    volatile long leasedUntilNanos;
    volatile boolean doomed;

    /** When it was sealed, in the order of seals (0: found at start). */
    final long seal;

    Held(WholeFile file, long now, long seal) {
      this.file = file;
      this.seal = seal;
      this.lastUsedNanos = now;
      // Not leased: nanoTime's values compare only by difference, so no "never" value exists.
      this.leasedUntilNanos = now;
    }

    boolean leased(long now) {
      return leasedUntilNanos - now > 0;
    }
  }

  private WholeFileArea(Path dir, KvStore index, LongSupplier nanoTime) {
    this.dir = dir;
    this.index = index;
    this.nanoTime = nanoTime;
  }

  /**
   * Opens the area of the cache folder {@code ssdDir} (made if missing, owner-only), recovering
   * what its index holds (see {@link WholeFileRecovery}).
   */
  public static WholeFileArea open(Path ssdDir, KvStore index, LongSupplier nanoTime)
      throws IOException {
    Path dir = OwnerOnly.folder(ssdDir.resolve("whole"));
    WholeFileArea area = new WholeFileArea(dir, index, nanoTime);
    WholeFileRecovery.Result r = new WholeFileRecovery(dir, index).run();
    long now = nanoTime.getAsLong();
    for (WholeFile f : r.files()) {
      area.files.put(f.key(), new Held(f, now, 0));
      area.used.addAndGet(f.length());
    }
    LOG.info(
        "whole files of {}: {} kept ({} bytes), {} re-checked, {} dropped, in {} ms",
        dir,
        r.files().size(),
        area.used.get(),
        r.rechecked(),
        r.dropped(),
        r.millis());
    return area;
  }

  /**
   * Removes what an area of the cache folder {@code ssdDir} left there when the worker ran with a
   * share for whole files and now runs without one: unopened, its files would be neither served,
   * counted nor evicted, and would keep their disk room for good. Their index entries go with them.
   */
  public static void removeLeftBehind(Path ssdDir, KvStore index, LongSupplier nanoTime)
      throws IOException {
    Path dir = ssdDir.resolve("whole");
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    int files;
    long bytes;
    try (WholeFileArea area = open(ssdDir, index, nanoTime)) {
      files = area.count();
      bytes = area.used();
      // Nothing holds a lease before the worker serves: every file goes.
      area.evictTo(0);
    }
    // Recovery removed parts and unindexed files; anything else stays, and so does the folder.
    try {
      Files.delete(dir);
    } catch (DirectoryNotEmptyException e) {
      LOG.warn("whole files of {}: the folder holds files not Strata's; left", dir);
    }
    LOG.info(
        "whole files of {}: {} removed ({} bytes): strata.worker.page.store.whole.share is 0",
        dir,
        files,
        bytes);
  }

  public Path dir() {
    return dir;
  }

  /** Counts seals with {@code counter} (shared by the areas of one worker). */
  void sealCounter(AtomicLong counter) {
    this.seals = counter;
  }

  /** The file's name: its key's ({@link io.strata.core.cache.VersionKey#name}). */
  static String name(PageId.FileKey key) {
    return key.version().name();
  }

  /**
   * Writes the version {@code key} of {@code length} bytes, whose pages {@code source} gives, as
   * one file, and indexes it; empty if a page is missing or of the wrong length (nothing is left
   * behind), or if another seal of it is under way. A version already sealed is returned as it is.
   */
  public Optional<WholeFile> seal(PageId.FileKey key, long length, int pageSize, PageSource source)
      throws IOException {
    Held held = files.get(key);
    if (held != null && !held.doomed) {
      return Optional.of(held.file);
    }
    try (WholeFileWriter w = begin(key, length, pageSize)) {
      if (w == null) {
        return Optional.empty();
      }
      for (long i = 0; i < w.pages(); i++) {
        ByteBuf page = source.page(i);
        if (page == null) {
          return Optional.empty();
        }
        try {
          if (!w.write(i, page)) {
            return Optional.empty();
          }
        } finally {
          page.release();
        }
      }
      return w.seal();
    }
  }

  /**
   * Starts writing the version {@code key} of {@code length} bytes as one file, its pages given in
   * any order ({@link WholeFileWriter#write}); null if another writer of it is open. Nothing is
   * served of it before {@link WholeFileWriter#seal}; a writer closed unsealed leaves nothing
   * behind.
   */
  public WholeFileWriter begin(PageId.FileKey key, long length, int pageSize) throws IOException {
    if (!sealing.add(key)) {
      return null;
    }
    try {
      return new WholeFileWriter(this, key, length, pageSize);
    } catch (IOException | RuntimeException e) {
      sealing.remove(key);
      throw e;
    }
  }

  /** A sealed file's part renamed into place: indexes it (as not yet synced) and serves it. */
  void sealed(WholeFile file) {
    unsynced.add(file.key());
    index.put(KeyLayout.wholeFileKey(file.key()), file.encode(false));
    Held old = files.put(file.key(), new Held(file, nanoTime.getAsLong(), seals.incrementAndGet()));
    used.addAndGet(file.length() - (old == null ? 0 : old.file.length()));
  }

  /** A writer of {@code key} is done, sealed or not: another may begin. */
  void writerClosed(PageId.FileKey key) {
    sealing.remove(key);
  }

  /** The sealed file of {@code key}, counted as used now; empty if none is held. */
  public Optional<WholeFile> find(PageId.FileKey key) {
    Held h = files.get(key);
    if (h == null || h.doomed) {
      return Optional.empty();
    }
    h.lastUsedNanos = nanoTime.getAsLong();
    return Optional.of(h.file);
  }

  /** Whether a sealed file holds the page {@code id} (not counted as a use). */
  public boolean holds(PageId id) {
    Held h = files.get(new PageId.FileKey(id.keyHigh(), id.keyLow()));
    return h != null && !h.doomed && id.index() >= 0 && id.index() < h.file.pages();
  }

  /**
   * The page {@code id} read from its whole file into a new buffer, crc checked; null if no file
   * holds it, or if it failed the check (the file is then demoted: its pages are read again from
   * the under-storage).
   */
  public ByteBuf readPage(PageId id, ByteBufAllocator allocator) throws IOException {
    PageId.FileKey key = new PageId.FileKey(id.keyHigh(), id.keyLow());
    WholeFile f = find(key).orElse(null);
    if (f == null || id.index() < 0 || id.index() >= f.pages()) {
      return null;
    }
    int i = (int) id.index();
    int n = f.pageLength(i);
    ByteBuf buf = allocator.directBuffer(n, n);
    boolean ok = false;
    try (FileChannel c = FileChannel.open(f.path(), StandardOpenOption.READ)) {
      ByteBuffer into = buf.nioBuffer(0, n);
      if (FileChannels.readFully(c, f.offset(i), into) == n) {
        CRC32C crc = new CRC32C();
        crc.update(buf.nioBuffer(0, n));
        ok = (int) crc.getValue() == f.crc(i);
      }
    } catch (java.nio.file.NoSuchFileException gone) {
      ok = false;
    } finally {
      if (!ok) {
        buf.release();
      }
    }
    if (!ok) {
      LOG.warn("page {} of whole file {} failed its crc check: demoted", i, f.path());
      remove(key);
      return null;
    }
    return buf.writerIndex(n);
  }

  /**
   * Keeps the file of {@code key} until {@code untilNanos} (a later lease extends it): neither
   * evicted nor deleted meanwhile. False if no such file is held (or it is being removed).
   */
  public boolean lease(PageId.FileKey key, long untilNanos) {
    Held h = files.get(key);
    if (h == null) {
      return false;
    }
    synchronized (h) {
      if (h.doomed) {
        return false;
      }
      if (untilNanos - h.leasedUntilNanos > 0) {
        h.leasedUntilNanos = untilNanos;
      }
      h.lastUsedNanos = nanoTime.getAsLong();
    }
    return true;
  }

  /**
   * Removes the file of {@code key} (its version changed, or was freed): now, or once its lease
   * ends ({@link #reap}); found no more either way. Returns the bytes freed now.
   */
  public long remove(PageId.FileKey key) throws IOException {
    Held h = files.get(key);
    if (h == null) {
      return 0;
    }
    synchronized (h) {
      h.doomed = true;
      if (h.leased(nanoTime.getAsLong())) {
        return 0;
      }
    }
    return delete(h);
  }

  /** Deletes the files whose removal waited for a lease that has ended; the bytes freed. */
  public long reap() throws IOException {
    long now = nanoTime.getAsLong();
    long freed = 0;
    for (Held h : List.copyOf(files.values())) {
      if (h.doomed && !h.leased(now)) {
        freed += delete(h);
      }
    }
    return freed;
  }

  /**
   * Removes the least recently used files that no lease holds until at most {@code bytes} are used,
   * or none is left to remove; the bytes freed.
   */
  public long evictTo(long bytes) throws IOException {
    return evictTo(bytes, Long.MAX_VALUE);
  }

  /** As {@link #evictTo(long)}, keeping the files sealed after the mark {@code keepAfter} too. */
  public long evictTo(long bytes, long keepAfter) throws IOException {
    long freed = 0;
    if (used.get() <= bytes) {
      return 0;
    }
    long now = nanoTime.getAsLong();
    List<Held> byAge = new ArrayList<>(files.values());
    byAge.sort(Comparator.comparingLong(h -> h.lastUsedNanos - now));
    for (Held h : byAge) {
      if (used.get() <= bytes) {
        break;
      }
      if (h.seal <= keepAfter) {
        freed += remove(h.file.key());
      }
    }
    return freed;
  }

  private long delete(Held h) throws IOException {
    PageId.FileKey key = h.file.key();
    if (!files.remove(key, h)) {
      return 0;
    }
    unsynced.remove(key);
    index.delete(KeyLayout.wholeFileKey(key));
    Files.deleteIfExists(h.file.path());
    used.addAndGet(-h.file.length());
    return h.file.length();
  }

  /**
   * Makes the bytes of every file sealed since the last call durable (one fsync each, off the
   * sealing path), then records in the index that they are; the number of files covered.
   */
  public int syncPending() throws IOException {
    List<Held> pending = new ArrayList<>();
    for (PageId.FileKey key : List.copyOf(unsynced)) {
      Held h = files.get(key);
      if (h == null) {
        unsynced.remove(key);
        continue;
      }
      try (FileChannel c = FileChannel.open(h.file.path(), StandardOpenOption.READ)) {
        c.force(true);
      } catch (java.nio.file.NoSuchFileException gone) {
        continue;
      }
      pending.add(h);
    }
    if (pending.isEmpty()) {
      return 0;
    }
    // The names too: a file renamed into place but not in its folder's entries is lost at a crash.
    try (FileChannel folder = FileChannel.open(dir, StandardOpenOption.READ)) {
      folder.force(true);
    }
    KvStore.Batch batch = new KvStore.Batch();
    for (Held h : pending) {
      if (files.get(h.file.key()) == h) {
        batch.put(KeyLayout.wholeFileKey(h.file.key()), h.file.encode(true));
      }
    }
    index.write(batch);
    pending.forEach(h -> unsynced.remove(h.file.key()));
    return pending.size();
  }

  /**
   * The scrub of one file: reads it back against its crcs; a file that fails (or is gone) is
   * demoted (removed now, or when its lease ends) and false is returned.
   */
  public boolean verify(PageId.FileKey key) throws IOException {
    Held h = files.get(key);
    if (h == null) {
      return false;
    }
    if (WholeFileRecovery.intact(h.file)) {
      return true;
    }
    LOG.warn("whole file {} failed its crc check: demoted, its pages will be read again", key);
    remove(key);
    return false;
  }

  /** The keys of the files held, for a scrub to walk. */
  public List<PageId.FileKey> keys() {
    return List.copyOf(files.keySet());
  }

  /** Bytes of the parts of files being sealed now. */
  public long partBytes() {
    return partBytes.get();
  }

  /** A writer's part grew by {@code bytes} (negative: it was renamed into place or deleted). */
  void partGrew(long bytes) {
    partBytes.addAndGet(bytes);
  }

  /** Bytes of the files held (those waiting for a lease to end included). */
  public long used() {
    return used.get();
  }

  public int count() {
    return files.size();
  }

  @Override
  public void close() {
    try {
      syncPending();
    } catch (IOException e) {
      LOG.warn("whole files of {} not synced at close: {}", dir, e.toString());
    }
  }
}
