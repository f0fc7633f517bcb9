package io.strata.fuse;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.strata.client.FileInfo;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import jnr.ffi.Struct;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * What the kernel knows of each file, so that a read through the mount returns one whole version of
 * it even when the file is replaced behind the mount. The kernel cuts reads at the size its
 * attribute cache holds, and may keep a file's pages in its page cache across opens; so an open
 * reads the version the kernel's attributes came from while they may still be in its cache (not a
 * newer one, whose bytes it would cut at the old size); while a file is open for reading, getattr
 * and new opens keep to the version being read (the kernel has one size per file, not per open: a
 * newer size learnt mid-read would cut the older version's reads short); and the kernel keeps its
 * cached pages only when the version opened is the one they came from. Once the last reader closes,
 * the file's current version shows again (close-to-open consistency). Thread-safe.
 */
final class KernelView {
  private static final int MAX_FILES = 100_000;

  /** What getattr last told the kernel, for as long as the kernel may hold it. */
  private final Cache<String, FileInfo> told;

  /** The version of each file the kernel's page cache may hold pages of: the last one opened. */
  private final Cache<String, String> inPageCache;

  private final boolean keepPages;

  /** The version being read of each file open for reading, and by how many opens. */
  private final Map<String, Reading> reading = new HashMap<>();

  private record Reading(FileInfo version, int opens) {}

  /**
   * @param attrTimeout how long the kernel keeps attributes (the mount's attr_timeout)
   * @param keepPages whether an unchanged file's pages may stay in the page cache across opens
   */
  KernelView(Duration attrTimeout, boolean keepPages) {
    this.told =
        Caffeine.newBuilder()
            .expireAfterWrite(attrTimeout.plusSeconds(1))
            .maximumSize(MAX_FILES)
            .build();
    this.inPageCache = Caffeine.newBuilder().maximumSize(MAX_FILES).build();
    this.keepPages = keepPages;
  }

  /**
   * What getattr tells the kernel of {@code path}: the version being read, else {@code current}.
   */
  FileInfo attributes(String path, Supplier<FileInfo> current) {
    FileInfo f = beingRead(path);
    if (f == null) {
      f = current.get();
    }
    if (!f.directory()) {
      told.put(path, f);
    }
    return f;
  }

  /**
   * The version an open of {@code path} reads: the one being read, else what the kernel was told,
   * else {@code current}.
   */
  FileInfo versionToOpen(String path, Supplier<FileInfo> current) {
    FileInfo f = beingRead(path);
    if (f == null) {
      f = told.getIfPresent(path);
    }
    return f != null ? f : current.get();
  }

  private synchronized FileInfo beingRead(String path) {
    Reading r = reading.get(path);
    return r == null ? null : r.version();
  }

  /** A reader of {@code path} closed. */
  synchronized void closed(String path) {
    Reading r = reading.get(path);
    if (r != null) {
      if (r.opens() <= 1) {
        reading.remove(path);
      } else {
        reading.put(path, new Reading(r.version(), r.opens() - 1));
      }
    }
  }

  /**
   * Sets the open's keep_cache flag: the kernel keeps the pages it holds of {@code path} only if
   * they are of {@code version}; remembers that they are from now on.
   */
  void opening(String path, FileInfo version, FuseFileInfo fi) {
    synchronized (this) {
      Reading r = reading.get(path);
      reading.put(path, new Reading(version, r == null ? 1 : r.opens() + 1));
    }
    boolean same = version.fingerprint().equals(inPageCache.getIfPresent(path));
    inPageCache.put(path, version.fingerprint());
    setKeepCache(fi, keepPages && same);
  }

  /** A file changed through the mount: whatever the kernel holds of it is of another version. */
  void forget(String path) {
    told.invalidate(path);
    inPageCache.invalidate(path);
    synchronized (this) {
      reading.remove(path);
    }
  }

  /**
   * jnr-fuse declares the bit fields of libfuse 2's {@code struct fuse_file_info} as padding, so
   * keep_cache is set in memory: on LP64 the fields are {@code int flags} at 0, {@code unsigned
   * long fh_old} at 8, {@code int writepage} at 16, then one word of bit fields at 20, direct_io
   * first (bit 0), keep_cache second (bit 1); {@code fh} follows at 24, where jnr-fuse puts it too.
   */
  private static void setKeepCache(FuseFileInfo fi, boolean keep) {
    jnr.ffi.Pointer memory = Struct.getMemory(fi);
    int bits = memory.getInt(20);
    memory.putInt(20, keep ? bits | 2 : bits & ~2);
  }
}
