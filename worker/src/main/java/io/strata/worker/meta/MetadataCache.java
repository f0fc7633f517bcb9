package io.strata.worker.meta;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.strata.core.proto.FileStatus;
import java.time.Duration;
import java.util.List;

/**
 * Cached UFS metadata, keyed by full UFS URI: file statuses (and "does not exist", for a shorter
 * time) and directory listings. Bounded by entry count; entries expire after the TTL. Each entry
 * remembers when it was loaded, so a request may demand fresher data than the TTL allows.
 * Thread-safe.
 */
public final class MetadataCache {
  /** Listings longer than this are not cached: one huge directory must not crowd out the rest. */
  static final int MAX_CACHED_LISTING = 100_000;

  /** A status, or null for "does not exist", and when it was read from the UFS. */
  record StatusEntry(FileStatus status, long loadedAtNanos) {}

  record ListingEntry(List<FileStatus> children, long loadedAtNanos) {}

  private final Cache<String, StatusEntry> statuses;
  private final Cache<String, ListingEntry> listings;
  private final Ticker ticker;
  private volatile Duration ttl;
  private volatile Duration negativeTtl;

  public MetadataCache(long maxEntries, Duration ttl, Duration negativeTtl, Ticker ticker) {
    this.ticker = ticker;
    this.ttl = ttl;
    this.negativeTtl = negativeTtl;
    this.statuses = Caffeine.newBuilder()
        .maximumSize(maxEntries)
        .ticker(ticker)
        .expireAfter(new Expiry<String, StatusEntry>() {
          @Override
          public long expireAfterCreate(String key, StatusEntry e, long now) {
            return ttlOf(e).toNanos();
          }

          @Override
          public long expireAfterUpdate(String key, StatusEntry e, long now, long current) {
            return expireAfterCreate(key, e, now);
          }

          @Override
          public long expireAfterRead(String key, StatusEntry e, long now, long current) {
            return current;
          }
        })
        .build();
    this.listings = Caffeine.newBuilder()
        .maximumWeight(maxEntries)
        .weigher((String k, ListingEntry e) -> Math.max(1, e.children().size()))
        .expireAfter(new Expiry<String, ListingEntry>() {
          @Override
          public long expireAfterCreate(String key, ListingEntry e, long now) {
            return MetadataCache.this.ttl.toNanos();
          }

          @Override
          public long expireAfterUpdate(String key, ListingEntry e, long now, long current) {
            return expireAfterCreate(key, e, now);
          }

          @Override
          public long expireAfterRead(String key, ListingEntry e, long now, long current) {
            return current;
          }
        })
        .ticker(ticker)
        .build();
  }

  /** New TTLs apply at once: entries older than them are no longer served (see {@link #isFresh}). */
  public void setTtl(Duration positive, Duration negative) {
    this.ttl = positive;
    this.negativeTtl = negative;
  }

  Duration ttlOf(StatusEntry e) {
    return e.status() == null ? negativeTtl : ttl;
  }

  Duration listingTtl() {
    return ttl;
  }

  long now() {
    return ticker.read();
  }

  StatusEntry status(String ufsUri) {
    return statuses.getIfPresent(ufsUri);
  }

  void putStatus(String ufsUri, FileStatus status, long loadedAtNanos) {
    statuses.put(ufsUri, new StatusEntry(status, loadedAtNanos));
  }

  ListingEntry listing(String ufsUri) {
    return listings.getIfPresent(ufsUri);
  }

  void putListing(String ufsUri, List<FileStatus> children, long loadedAtNanos) {
    if (children.size() <= MAX_CACHED_LISTING) {
      listings.put(ufsUri, new ListingEntry(List.copyOf(children), loadedAtNanos));
    }
  }

  /** Forgets what is known of {@code ufsUri}: its status and its listing. */
  public void invalidate(String ufsUri) {
    statuses.invalidate(ufsUri);
    listings.invalidate(ufsUri);
  }

  public long size() {
    return statuses.estimatedSize() + listings.estimatedSize();
  }
}
