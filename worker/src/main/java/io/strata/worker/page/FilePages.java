package io.strata.worker.page;

import java.util.List;

/**
 * The cached pages of whole file versions, as pages of one size cut them: how much of a version the
 * store holds, and dropping what it holds of one (free, a TTL passed, a mount gone). Thread-safe as
 * the store is.
 */
public final class FilePages {
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
    long bytes = 0;
    for (long i = 0; i < pages(fileLength); i++) {
      if (store.contains(key.page(i))) {
        bytes += pageLength(i, fileLength);
      }
    }
    return bytes;
  }

  /** Drops every cached page of the version {@code key}; returns the bytes dropped. */
  public long free(PageId.FileKey key, long fileLength) {
    long bytes = 0;
    for (long i = 0; i < pages(fileLength); i++) {
      PageId id = key.page(i);
      if (store.contains(id)) {
        store.remove(id);
        bytes += pageLength(i, fileLength);
      }
    }
    return bytes;
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
    return (fileLength + pageSize - 1) / pageSize;
  }

  private long pageLength(long index, long fileLength) {
    return Math.min(pageSize, fileLength - index * pageSize);
  }
}
