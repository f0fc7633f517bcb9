package io.strata.fuse;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Ticker;
import io.strata.client.FileInfo;
import io.strata.core.util.Caches;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import jnr.ffi.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * What the kernel knows of each file, so that a read through the mount returns one whole version of
 * it even when the file is replaced behind the mount. The kernel cuts reads at the size its
 * attribute cache holds, and may keep a file's pages in its page cache across opens; so an open
 * reads the version the kernel's attributes came from while they may still be in its cache (not a
 * newer one, whose bytes it would cut at the old size); while a file is open for reading, getattr
 * and new opens keep to the version being read (the kernel has one size per file, not per open: a
 * newer size learnt mid-read would cut the older version's reads short: so do getattrs that looked
 * the current version up while such an open began, and getattrs of the file under the name a rename
 * through the mount gave it); and the kernel keeps its cached pages only when the version opened is
 * the one they came from. Once the last reader closes, the file's current version shows again
 * (close-to-open consistency).
 *
 * <p>This view is by path, the kernel's by inode; a change through the mount (a writer, a rename,
 * an unlink, a truncate) can move a path to another inode, whose size the kernel learnt from
 * writes, not from getattr. So while a path is being changed through the mount, and for as long as
 * the kernel may keep attributes after that (judged when the open began: its path walk fixed the
 * kernel's size, and its look-up here may be slow), opens of it are unsure: they read with
 * direct_io, which the kernel does not cut at its size, and leave no trace here. So are opens of a
 * path getattr told two versions of lately (a file replaced behind the mount while it was looked
 * at): the kernel may hold either size; and opens of a path getattr told nothing of lately: the
 * kernel looks a path up again once its attributes expire, so such an open waited in the kernel's
 * queue (every FUSE thread busy, reads held by a restarting worker, say) past the window of the
 * look-up that gave the kernel its size. Thread-safe.
 */
final class KernelView {
  /** At DEBUG, every version told and opened: what a post-mortem of a mixed read needs. */
  private static final Logger LOG = LoggerFactory.getLogger(KernelView.class);

  private static final int MAX_FILES = 100_000;
  private static final int DIRECT_IO = 1;
  private static final int KEEP_CACHE = 2;

  /** What getattr last told the kernel, for as long as the kernel may hold it. */
  private final Cache<String, FileInfo> told;

  /**
   * Paths getattr told the kernel two versions of, for as long as the kernel may hold either: their
   * opens are unsure.
   */
  private final Cache<String, Boolean> toldTwoVersions;

  /** The version of each file the kernel's page cache may hold pages of: the last one opened. */
  private final Cache<String, String> inPageCache;

  /**
   * Paths changed through the mount, for as long as the kernel may hold what it learnt then, with
   * the tick of the {@link #clock} when the last change ended.
   */
  private final Cache<String, Long> recentlyChanged;

  /** Ticks at every change through the mount, so that a look-up knows if one ended during it. */
  private final AtomicLong clock = new AtomicLong();

  private final boolean keepPages;

  /** The version being read of each file open for reading, and by how many opens. */
  private final Map<String, Reading> reading = new HashMap<>();

  /** Changes through the mount in progress, by path. */
  private final Map<String, Integer> changing = new HashMap<>();

  /**
   * The opens reading one version of a file. A change through the mount forgets it, and the opens
   * that joined it no longer count for the version the file shows (they close into it, not into a
   * newer one).
   */
  static final class Reading {
    private final FileInfo version;
    private int opens;

    /** Where the file is: a rename through the mount moves it, and its readers with it. */
    private String path;

    private Reading(String path, FileInfo version) {
      this.path = path;
      this.version = version;
    }

    FileInfo version() {
      return version;
    }
  }

  /**
   * @param kernelHolds how long the kernel keeps attributes and names (the mount's attr_timeout and
   *     entry_timeout, whichever is longer): an open's path walk takes the size a look-up gave
   *     until then
   * @param keepPages whether an unchanged file's pages may stay in the page cache across opens
   */
  KernelView(Duration kernelHolds, boolean keepPages) {
    this(kernelHolds, keepPages, Ticker.systemTicker());
  }

  KernelView(Duration kernelHolds, boolean keepPages, Ticker ticker) {
    Duration held = kernelHolds.plusSeconds(1);
    this.told =
        Caches.builder().ticker(ticker).expireAfterWrite(held).maximumSize(MAX_FILES).build();
    this.recentlyChanged =
        Caches.builder().ticker(ticker).expireAfterWrite(held).maximumSize(MAX_FILES).build();
    this.toldTwoVersions =
        Caches.builder().ticker(ticker).expireAfterWrite(held).maximumSize(MAX_FILES).build();
    this.inPageCache = Caches.builder().maximumSize(MAX_FILES).build();
    this.keepPages = keepPages;
  }

  /**
   * What getattr tells the kernel of {@code path}: the version being read, else {@code current}.
   */
  FileInfo attributes(String path, Supplier<FileInfo> current) {
    long before = clock.get();
    FileInfo f = beingRead(path);
    if (f == null) {
      f = current.get();
    }
    if (f.directory()) {
      return f;
    }
    synchronized (this) {
      // An open that began while the current version was looked up reads what the kernel was told
      // before: this reply, which the kernel may take in the middle of that read, must not move
      // the size under it.
      Reading r = reading.get(path);
      if (r != null) {
        f = r.version;
      }
      if (nothingChangedSince(path, before)) {
        FileInfo earlier = told.asMap().put(path, f);
        if (earlier != null && !earlier.fingerprint().equals(f.fingerprint())) {
          // Replies to getattrs racing a replacement may reach the kernel in either order, and it
          // may drop one: which size it holds is not known here.
          toldTwoVersions.put(path, Boolean.TRUE);
        }
      }
    }
    LOG.debug("attr {} {} {}", path, f.fingerprint(), f.length());
    return f;
  }

  /**
   * An open of {@code path} for reading: of the version being read, else of what the kernel was
   * told, else of {@code current}. Sets the open's flags: keep_cache when the kernel's cached pages
   * are of the version opened, direct_io when unsure. The caller passes the result to {@link
   * #closed} (a directory's is not counted).
   */
  Reading open(String path, Supplier<FileInfo> current, FuseFileInfo fi) {
    // The kernel's size was fixed by the path walk before this open was asked; a look-up below
    // may take seconds (a worker restarting), past the end of a change's window.
    boolean unsureBefore = unsure(path);
    FileInfo candidate = beingRead(path);
    if (candidate == null) {
      candidate = told.getIfPresent(path);
    }
    if (candidate == null) {
      candidate = current.get();
    }
    if (candidate.directory()) {
      return new Reading(path, candidate);
    }
    FileInfo chosen = candidate;
    Reading r;
    boolean sure;
    synchronized (this) {
      r = reading.get(path);
      // A getattr may have told the kernel another version since the candidate was chosen.
      FileInfo t = told.getIfPresent(path);
      // With nothing told lately, the open was queued behind busy FUSE threads past the window of
      // the look-up that fixed the kernel's size: which size that was is not known here.
      sure =
          !unsureBefore
              && !unsure(path)
              && (r != null || (t != null && t.fingerprint().equals(chosen.fingerprint())));
      if (!sure) {
        r = new Reading(path, chosen);
      } else if (r == null) {
        r = new Reading(path, chosen);
        reading.put(path, r);
      }
      r.opens++;
    }
    if (!sure) {
      inPageCache.invalidate(path);
      setFlags(fi, DIRECT_IO);
      LOG.debug("open {} {} {} direct_io", path, chosen.fingerprint(), chosen.length());
      return r;
    }
    String fingerprint = r.version.fingerprint();
    boolean same = fingerprint.equals(inPageCache.getIfPresent(path));
    inPageCache.put(path, fingerprint);
    setFlags(fi, keepPages && same ? KEEP_CACHE : 0);
    LOG.debug("open {} {} {} {}", path, fingerprint, r.version.length(), same ? "keep" : "fresh");
    return r;
  }

  private synchronized FileInfo beingRead(String path) {
    Reading r = reading.get(path);
    return r == null ? null : r.version;
  }

  /** A reader that opened {@code r} closed. */
  synchronized void closed(Reading r) {
    LOG.debug("closed {} {}", r.path, r.version.fingerprint());
    if (--r.opens == 0) {
      reading.remove(r.path, r);
    }
  }

  /**
   * A rename of {@code from} to {@code to} through the mount begins; returns the opens reading
   * {@code from}, for {@link #renamed}.
   */
  Reading renaming(String from, String to) {
    Reading moving;
    synchronized (this) {
      moving = reading.get(from);
    }
    changing(from);
    changing(to);
    return moving;
  }

  /**
   * The rename begun with {@link #renaming} ended. If it was done, the kernel moved the inode, and
   * asks getattr of it by its new name from now on (libfuse's hiding of a replaced file that is
   * still open is such a rename): its readers' version goes with it, so that no reply tells the
   * kernel another size in the middle of their reads.
   */
  void renamed(String from, String to, Reading moving, boolean done) {
    changed(from);
    changed(to);
    if (done && moving != null) {
      synchronized (this) {
        if (moving.opens > 0 && !reading.containsKey(to)) {
          moving.path = to;
          reading.put(to, moving);
        }
      }
    }
  }

  /** A change of {@code path} through the mount begins: what the kernel holds of it goes stale. */
  void changing(String path) {
    LOG.debug("changing {}", path);
    clock.incrementAndGet();
    synchronized (this) {
      changing.merge(path, 1, Integer::sum);
      reading.remove(path);
    }
    forget(path);
  }

  /** A change of {@code path} through the mount, begun with {@link #changing}, ended. */
  void changed(String path) {
    LOG.debug("changed {}", path);
    recentlyChanged.put(path, clock.incrementAndGet());
    synchronized (this) {
      changing.computeIfPresent(path, (k, n) -> n > 1 ? n - 1 : null);
      reading.remove(path);
    }
    forget(path);
  }

  private void forget(String path) {
    told.invalidate(path);
    inPageCache.invalidate(path);
  }

  private synchronized boolean unsure(String path) {
    return changing.containsKey(path)
        || recentlyChanged.getIfPresent(path) != null
        || toldTwoVersions.getIfPresent(path) != null;
  }

  /** Whether no change of {@code path} through the mount was under way after {@code tick}. */
  private synchronized boolean nothingChangedSince(String path, long tick) {
    Long last = recentlyChanged.getIfPresent(path);
    return !changing.containsKey(path) && (last == null || last <= tick);
  }

  /**
   * jnr-fuse declares the bit fields of libfuse 2's {@code struct fuse_file_info} as padding, so
   * they are set in memory: on LP64 the fields are {@code int flags} at 0, {@code unsigned long
   * fh_old} at 8, {@code int writepage} at 16, then one word of bit fields at 20, direct_io first
   * (bit 0), keep_cache second (bit 1); {@code fh} follows at 24, where jnr-fuse puts it too.
   */
  private static void setFlags(FuseFileInfo fi, int flags) {
    jnr.ffi.Pointer memory = Struct.getMemory(fi);
    int bits = memory.getInt(20) & ~(DIRECT_IO | KEEP_CACHE);
    memory.putInt(20, bits | flags);
  }
}
