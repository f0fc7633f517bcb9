package io.strata.worker.page;

import java.util.List;
import java.util.stream.LongStream;

/**
 * The cached pages of whole file versions, as pages of one size cut them: how much of a version the
 * store holds, and dropping what it holds of one (free, a TTL passed, a mount gone). Thread-safe as
 * the store is.
 */
public final class FilePages {
  /** Versions of up to this many pages are looked up page by page, whatever the store holds. */
  private static final long WALK_ALWAYS = 4096;

  private final PageStore store;
  private final long pageSize;

  public FilePages(PageStore store, long pageSize) {
    this.store = store;
    this.pageSize = pageSize;
  }

  /** The key of the version {@code fingerprint} of the file at {@code ufsUri}. */
  public PageId.FileKey key(String ufsUri, String fingerprint) {
    return PageId.FileKey.of(ufsUri, fingerprint, pageSize);
  }

  /** Bytes of the version {@code key}, {@code fileLength} long, held in the store. */
  public long cachedBytes(PageId.FileKey key, long fileLength) {
    return held(key, fileLength).map(i -> pageLength(i, fileLength)).sum();
  }

  /** Drops every cached page of the version {@code key}; returns the bytes dropped. */
  public long free(PageId.FileKey key, long fileLength) {
    long bytes = 0;
    for (long i : held(key, fileLength).toArray()) {
      store.remove(key.page(i));
      bytes += pageLength(i, fileLength);
    }
    return bytes;
  }

  /**
   * The indexes of the pages of {@code key} the store holds, below {@code fileLength}. A file's
   * length is the under-storage's word: a sparse one may say 8 EiB (2^51 pages of 4 KiB), so a
   * version with more pages than the store holds is found by a walk of the store's pages instead.
   */
  private LongStream held(PageId.FileKey key, long fileLength) {
    long pages = pages(fileLength);
    if (pages <= store.pageCount() + WALK_ALWAYS) {
      return LongStream.range(0, pages).filter(i -> store.contains(key.page(i)));
    }
    return store.heldIndexes(key).filter(i -> i < pages);
  }

  /** Drops the cached pages of these versions; returns the bytes dropped. */
  public long free(List<CachedVersions.Version> versions) {
    long bytes = 0;
    for (CachedVersions.Version v : versions) {
      bytes += free(key(v.ufsUri(), v.fingerprint()), v.length());
    }
    return bytes;
  }

  /** Drops the cached pages of every version of every file at or below {@code ufsUri}. */
  public long freeUnder(String ufsUri) {
    return free(store.versions().under(ufsUri));
  }

  private long pages(long fileLength) {
    // Not (length + size - 1) / size: that overflows for the longest lengths.
    return fileLength / pageSize + (fileLength % pageSize == 0 ? 0 : 1);
  }

  private long pageLength(long index, long fileLength) {
    return Math.min(pageSize, fileLength - index * pageSize);
  }
}
