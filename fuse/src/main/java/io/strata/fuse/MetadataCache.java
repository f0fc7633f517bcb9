package io.strata.fuse;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import java.time.Duration;
import java.util.List;

/**
 * Statuses and listings the FUSE process asked for lately, kept for strata.fuse.metadata.cache.ttl
 * so that `ls -l` and the kernel's repeated look-ups cost one round trip, not one per call. A
 * listing also fills the status of each child. Changes made through the mount drop what they touch.
 */
final class MetadataCache {
  private static final int MAX_ENTRIES = 100_000;

  private final FileSystem fs;
  private final Cache<String, FileInfo> statuses;
  private final Cache<String, List<FileInfo>> listings;

  MetadataCache(FileSystem fs, Duration ttl) {
    this.fs = fs;
    this.statuses = Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(ttl.isZero() ? 0 : MAX_ENTRIES).build();
    this.listings = Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(ttl.isZero() ? 0 : MAX_ENTRIES / 10)
        .build();
  }

  FileInfo status(String path) {
    FileInfo cached = statuses.getIfPresent(path);
    return cached != null ? cached : remember(fs.getStatus(path));
  }

  List<FileInfo> list(String path) {
    List<FileInfo> cached = listings.getIfPresent(path);
    if (cached != null) {
      return cached;
    }
    List<FileInfo> children = fs.listStatus(path);
    children.forEach(this::remember);
    listings.put(path, children);
    return children;
  }

  private FileInfo remember(FileInfo info) {
    statuses.put(info.path(), info);
    return info;
  }

  /** Drops {@code path} and its parent's listing, after a change to the file. */
  void invalidate(String path) {
    statuses.invalidate(path);
    listings.invalidate(path);
    int slash = path.lastIndexOf('/');
    listings.invalidate(slash <= 0 ? "/" : path.substring(0, slash));
  }

  /** Drops {@code path}, everything under it and its parent's listing, after a folder moved or went. */
  void invalidateTree(String path) {
    String prefix = path + "/";
    statuses.asMap().keySet().removeIf(p -> p.startsWith(prefix));
    listings.asMap().keySet().removeIf(p -> p.startsWith(prefix));
    invalidate(path);
  }
}
