package io.strata.client;

import com.github.benmanes.caffeine.cache.Cache;
import io.strata.core.path.StrataPath;
import io.strata.core.util.Caches;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Statuses and listings this client asked for lately, kept for strata.user.metadata.cache.ttl so
 * that `ls -l`, a FUSE kernel's repeated look-ups or a framework's exists-then-open cost one round
 * trip, not one per call. A listing also fills the status of each child (where the store lists
 * whole statuses), and an open refreshes the status of its file. Changes made through this client
 * drop what they touch at once; changes made elsewhere show within the TTL. A TTL of zero turns it
 * off without building any cache (a shell command, which asks for each status once, would pay only
 * their set-up). Thread-safe.
 */
final class MetadataCache {
  private final boolean off;
  private final Cache<String, FileInfo> statuses;
  private final Cache<String, List<FileInfo>> listings;

  MetadataCache(Duration ttl, long maxEntries) {
    this.off = ttl.isZero();
    this.statuses =
        off ? null : Caches.builder().expireAfterWrite(ttl).maximumSize(maxEntries).build();
    this.listings =
        off ? null : Caches.builder().expireAfterWrite(ttl).maximumSize(maxEntries / 10).build();
  }

  FileInfo status(String path, Function<String, FileInfo> load) {
    FileInfo cached = off ? null : statuses.getIfPresent(path);
    return cached != null ? cached : remember(load.apply(path));
  }

  /**
   * The children of {@code path}; each also fills its own status, unless its store lists only
   * names, lengths and fingerprints (S3's listings leave out the metadata that keeps the rest).
   */
  List<FileInfo> list(String path, Function<String, List<FileInfo>> load) {
    List<FileInfo> cached = off ? null : listings.getIfPresent(path);
    if (cached != null) {
      return cached;
    }
    List<FileInfo> children = List.copyOf(load.apply(path));
    if (!off) {
      children.stream().filter(c -> !c.listedOnly()).forEach(this::remember);
      listings.put(path, children);
    }
    return children;
  }

  FileInfo remember(FileInfo info) {
    if (!off) {
      statuses.put(info.path(), info);
    }
    return info;
  }

  /**
   * Drops {@code path}, and its parent's listing and status, after a change to the file: a new,
   * removed or renamed entry changes its folder's times (and a stat of the folder must show it).
   */
  void invalidate(StrataPath path) {
    if (off) {
      return;
    }
    statuses.invalidate(path.toString());
    listings.invalidate(path.toString());
    if (!path.isRoot()) {
      statuses.invalidate(path.parent().toString());
      listings.invalidate(path.parent().toString());
    }
  }

  /** Also drops everything under {@code path}, after a folder moved or went (a scan: rare). */
  void invalidateTree(StrataPath path) {
    if (off) {
      return;
    }
    String prefix = path.isRoot() ? "/" : path + "/";
    statuses.asMap().keySet().removeIf(k -> k.startsWith(prefix));
    listings.asMap().keySet().removeIf(k -> k.startsWith(prefix));
    invalidate(path);
  }
}
