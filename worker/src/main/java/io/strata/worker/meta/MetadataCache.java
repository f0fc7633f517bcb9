package io.strata.worker.meta;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Expiry;
import com.google.protobuf.InvalidProtocolBufferException;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.ListStatusResponse;
import io.strata.core.util.Caches;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Cached UFS metadata, keyed by full UFS URI: file statuses (and "does not exist", for a shorter
 * time, in memory only) and directory listings. A bounded in-memory cache (Caffeine) sits over a
 * persistent store ({@link KvStore}, RocksDB's TTL database in a worker) that holds far more
 * entries than the heap could and survives restarts. Each entry remembers when it was read from the
 * UFS (wall clock), so it stops being served once older than the TTL in force, also after a
 * restart, and a request may demand fresher data still. Thread-safe.
 */
public final class MetadataCache {
  /** Listings longer than this are not cached: one huge directory must not crowd out the rest. */
  static final int MAX_CACHED_LISTING = 100_000;

  /** Listings longer than this stay in memory only. */
  static final int MAX_STORED_LISTING = 10_000;

  /** A status, or null for "does not exist", and when it was read from the UFS (epoch ms). */
  public record StatusEntry(FileStatus status, long loadedAtMs) {}

  record ListingEntry(List<FileStatus> children, long loadedAtMs) {}

  private final Cache<String, StatusEntry> statuses;
  private final Cache<String, ListingEntry> listings;
  private final KvStore store;
  private final LongSupplier nowMs;
  private volatile Duration ttl;
  private volatile Duration negativeTtl;

  public MetadataCache(
      long maxEntries, Duration ttl, Duration negativeTtl, LongSupplier nowMs, KvStore store) {
    this.nowMs = nowMs;
    this.store = store;
    this.ttl = ttl;
    this.negativeTtl = negativeTtl;
    this.statuses =
        Caches.builder()
            .maximumSize(maxEntries)
            .ticker(() -> nowMs.getAsLong() * 1_000_000)
            .expireAfter(new ExpireByAge<StatusEntry>(e -> ttlOf(e), StatusEntry::loadedAtMs))
            .build();
    this.listings =
        Caches.builder()
            .maximumWeight(maxEntries)
            .weigher((String k, ListingEntry e) -> Math.max(1, e.children().size()))
            .ticker(() -> nowMs.getAsLong() * 1_000_000)
            .expireAfter(new ExpireByAge<ListingEntry>(e -> this.ttl, ListingEntry::loadedAtMs))
            .build();
  }

  /** New TTLs apply at once: entries older than them are no longer served. */
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
    return nowMs.getAsLong();
  }

  /** What is cached of {@code ufsUri} (memory, then the store), fresh or not; null if nothing. */
  public StatusEntry status(String ufsUri) {
    StatusEntry e = statuses.getIfPresent(ufsUri);
    if (e == null) {
      byte[] v = store.get(KeyLayout.metadataKey(KeyLayout.FILE_STATUS, ufsUri));
      if (v != null) {
        e = new StatusEntry(parse(v, FileStatus.parser()), ByteBuffer.wrap(v).getLong());
        if (e.status() != null) {
          statuses.put(ufsUri, e);
        }
      }
    }
    return e;
  }

  /** What the in-memory cache holds of {@code ufsUri}, fresh or not; null if nothing. */
  public StatusEntry statusInMemory(String ufsUri) {
    return statuses.getIfPresent(ufsUri);
  }

  /** Caches a status read from the UFS at {@code loadedAtMs} (null: the path does not exist). */
  public void putStatus(String ufsUri, FileStatus status, long loadedAtMs) {
    statuses.put(ufsUri, new StatusEntry(status, loadedAtMs));
    if (status != null) {
      store.put(
          KeyLayout.metadataKey(KeyLayout.FILE_STATUS, ufsUri),
          encode(loadedAtMs, status.toByteArray()));
    }
  }

  /**
   * The entry named {@code name} in the cached listing of folder {@code parentUri}, stamped with
   * when that listing was read (in memory only if {@code memoryOnly}); null when no listing is
   * cached, it does not hold the name, or it holds only what the store lists of the entry ({@link
   * FileStatus#getListedOnly}). Whatever changes an entry forgets its folder's listing too, so the
   * listing is never older news than the entry's own status would be.
   */
  StatusEntry childOfListing(String parentUri, String name, boolean memoryOnly) {
    ListingEntry l = memoryOnly ? listings.getIfPresent(parentUri) : listing(parentUri);
    if (l == null) {
      return null;
    }
    List<FileStatus> children = l.children();
    int low = 0;
    int high = children.size() - 1;
    while (low <= high) { // sorted by name: see MetadataService.listStore
      int mid = (low + high) >>> 1;
      FileStatus child = children.get(mid);
      int c = child.getName().compareTo(name);
      if (c == 0) {
        return child.getListedOnly() ? null : new StatusEntry(child, l.loadedAtMs());
      }
      if (c < 0) {
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return null;
  }

  ListingEntry listing(String ufsUri) {
    ListingEntry e = listings.getIfPresent(ufsUri);
    if (e == null) {
      byte[] v = store.get(KeyLayout.metadataKey(KeyLayout.LISTING, ufsUri));
      ListStatusResponse children = v == null ? null : parse(v, ListStatusResponse.parser());
      if (children != null) {
        e = new ListingEntry(children.getChildrenList(), ByteBuffer.wrap(v).getLong());
        listings.put(ufsUri, e);
      }
    }
    return e;
  }

  void putListing(String ufsUri, List<FileStatus> children, long loadedAtMs) {
    if (children.size() > MAX_CACHED_LISTING) {
      return;
    }
    listings.put(ufsUri, new ListingEntry(List.copyOf(children), loadedAtMs));
    if (children.size() <= MAX_STORED_LISTING) {
      store.put(
          KeyLayout.metadataKey(KeyLayout.LISTING, ufsUri),
          encode(
              loadedAtMs,
              ListStatusResponse.newBuilder().addAllChildren(children).build().toByteArray()));
    }
  }

  /** Forgets what is known of {@code ufsUri}: its status and its listing. */
  public void invalidate(String ufsUri) {
    statuses.invalidate(ufsUri);
    listings.invalidate(ufsUri);
    store.write(
        new KvStore.Batch()
            .delete(KeyLayout.metadataKey(KeyLayout.FILE_STATUS, ufsUri))
            .delete(KeyLayout.metadataKey(KeyLayout.LISTING, ufsUri)));
  }

  /**
   * Forgets what is known of {@code ufsUri} and of everything under it, in memory and in the store;
   * returns the statuses of the files it knew there (whose pages a caller may drop).
   */
  public List<FileStatus> forgetUnder(String ufsUri) {
    String below = ufsUri.endsWith("/") ? ufsUri : ufsUri + "/";
    java.util.function.Predicate<String> under = k -> k.equals(ufsUri) || k.startsWith(below);
    java.util.Map<String, FileStatus> files = new java.util.HashMap<>();
    statuses
        .asMap()
        .forEach(
            (k, e) -> {
              if (under.test(k) && e.status() != null && !e.status().getDirectory()) {
                files.put(k, e.status());
              }
            });
    KvStore.Batch batch = new KvStore.Batch();
    for (byte kind : new byte[] {KeyLayout.FILE_STATUS, KeyLayout.LISTING}) {
      store.scan(
          KeyLayout.metadataKey(kind, ufsUri),
          (key, value) -> {
            String k = KeyLayout.uriOf(key);
            if (!under.test(k)) {
              return;
            }
            batch.delete(key);
            if (kind == KeyLayout.FILE_STATUS) {
              FileStatus f = parse(value, FileStatus.parser());
              if (f != null && !f.getDirectory()) {
                files.putIfAbsent(k, f);
              }
            }
          });
    }
    statuses.asMap().keySet().removeIf(under);
    listings.asMap().keySet().removeIf(under);
    if (!batch.isEmpty()) {
      store.write(batch);
    }
    return List.copyOf(files.values());
  }

  public long memoryEntries() {
    return statuses.estimatedSize() + listings.estimatedSize();
  }

  private static byte[] encode(long loadedAtMs, byte[] proto) {
    return ByteBuffer.allocate(8 + proto.length).putLong(loadedAtMs).put(proto).array();
  }

  private static <T> T parse(byte[] v, com.google.protobuf.Parser<T> parser) {
    try {
      return parser.parseFrom(v, 8, v.length - 8);
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  /** Caffeine expiry: an entry lives until its age reaches the TTL it has now. */
  private final class ExpireByAge<E> implements Expiry<String, E> {
    private final java.util.function.Function<E, Duration> ttlOf;
    private final java.util.function.ToLongFunction<E> loadedAt;

    ExpireByAge(
        java.util.function.Function<E, Duration> ttlOf,
        java.util.function.ToLongFunction<E> loadedAt) {
      this.ttlOf = ttlOf;
      this.loadedAt = loadedAt;
    }

    @Override
    public long expireAfterCreate(String key, E e, long now) {
      long left = ttlOf.apply(e).toMillis() - (nowMs.getAsLong() - loadedAt.applyAsLong(e));
      return Math.max(0, left) * 1_000_000;
    }

    @Override
    public long expireAfterUpdate(String key, E e, long now, long current) {
      return expireAfterCreate(key, e, now);
    }

    @Override
    public long expireAfterRead(String key, E e, long now, long current) {
      return current;
    }
  }
}
