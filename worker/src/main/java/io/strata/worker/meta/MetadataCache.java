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
import java.util.ArrayList;
import java.util.Iterator;
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
  /**
   * Listings longer than this are not held in memory (one huge directory must not crowd out the
   * rest) but kept as rows in the store ({@link #putLargeListing}).
   */
  static final int MAX_CACHED_LISTING = 100_000;

  /** Listings longer than this stay in memory only. */
  static final int MAX_STORED_LISTING = 10_000;

  /** Rows of a large listing written at once. */
  private static final int ROWS_PER_BATCH = 10_000;

  /** A status, or null for "does not exist", and when it was read from the UFS (epoch ms). */
  public record StatusEntry(FileStatus status, long loadedAtMs) {}

  record ListingEntry(List<FileStatus> children, long loadedAtMs) {}

  /** A listing too long for memory, kept as one row per entry in the store; when it was read. */
  record LargeListing(long loadedAtMs, long entries) {}

  private final int maxCachedListing;
  private final Cache<String, StatusEntry> statuses;
  private final Cache<String, ListingEntry> listings;
  private final KvStore store;
  private final LongSupplier nowMs;
  private volatile Duration ttl;
  private volatile Duration negativeTtl;

  /**
   * The TTL at start: the store drops entries older than it (WorkerProcess opens RocksDB's TTL
   * database so), so a large listing, whose rows must all be there, is served no longer than this
   * whatever TTL is set later.
   */
  private final Duration storeTtl;

  public MetadataCache(
      long maxEntries, Duration ttl, Duration negativeTtl, LongSupplier nowMs, KvStore store) {
    this(maxEntries, ttl, negativeTtl, nowMs, store, MAX_CACHED_LISTING);
  }

  /** With listings longer than {@code maxCachedListing} kept as rows in the store. */
  MetadataCache(
      long maxEntries,
      Duration ttl,
      Duration negativeTtl,
      LongSupplier nowMs,
      KvStore store,
      int maxCachedListing) {
    this.maxCachedListing = maxCachedListing;
    this.nowMs = nowMs;
    this.store = store;
    this.ttl = ttl;
    this.storeTtl = ttl;
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

  /** How long a listing may be to be held in memory; longer ones are rows in the store. */
  int maxCachedListing() {
    return maxCachedListing;
  }

  void putListing(String ufsUri, List<FileStatus> children, long loadedAtMs) {
    if (children.size() > maxCachedListing) {
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

  /** The large listing of {@code ufsUri} if one is stored whole, fresh or not; else null. */
  LargeListing largeListing(String ufsUri) {
    byte[] v = store.get(KeyLayout.metadataKey(KeyLayout.LARGE_LISTING, ufsUri));
    if (v == null || v.length != 16) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(v);
    return new LargeListing(b.getLong(), b.getLong());
  }

  /** The TTL a large listing is served for: the TTL in force, and never past the store's. */
  Duration largeListingTtl() {
    Duration now = ttl;
    return now.compareTo(storeTtl) < 0 ? now : storeTtl;
  }

  /**
   * Stores the listing of {@code ufsUri} read at {@code loadedAtMs}, in any order (the store sorts
   * rows by the bytes of their names), replacing what was stored; returns how many entries it
   * holds. Memory holds a batch of rows at a time, however long the listing.
   */
  long putLargeListing(String ufsUri, Iterator<FileStatus> children, long loadedAtMs) {
    byte[] head = KeyLayout.metadataKey(KeyLayout.LARGE_LISTING, ufsUri);
    byte[] rows = KeyLayout.listingRowsPrefix(ufsUri);
    store.write(new KvStore.Batch().delete(head).deleteRange(rows, KeyLayout.afterPrefix(rows)));
    KvStore.Batch batch = new KvStore.Batch();
    long n = 0;
    while (children.hasNext()) {
      FileStatus child = children.next();
      batch.put(KeyLayout.listingRowKey(ufsUri, child.getName()), child.toByteArray());
      if (++n % ROWS_PER_BATCH == 0) {
        store.write(batch);
        batch = new KvStore.Batch();
      }
    }
    // The head last: a listing is served only once every row is there.
    store.write(batch.put(head, ByteBuffer.allocate(16).putLong(loadedAtMs).putLong(n).array()));
    return n;
  }

  /**
   * At most {@code limit} entries of the large listing of {@code ufsUri} whose names' bytes sort
   * after {@code startAfter} ("": from the first), read from the store's rows at that place.
   */
  List<FileStatus> largeListingPage(String ufsUri, String startAfter, int limit) {
    byte[] rows = KeyLayout.listingRowsPrefix(ufsUri);
    // The least row after startAfter's is its key followed by NUL: names hold no NUL.
    byte[] from =
        startAfter.isEmpty()
            ? rows
            : java.util.Arrays.copyOf(
                KeyLayout.listingRowKey(ufsUri, startAfter),
                rows.length
                    + startAfter.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                    + 1);
    List<FileStatus> page = new ArrayList<>(Math.min(limit, 1024));
    store.scan(
        rows,
        from,
        limit,
        (k, v) -> {
          try {
            page.add(FileStatus.parseFrom(v));
          } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a listing row of " + ufsUri + " cannot be read", e);
          }
        });
    return page;
  }

  /** Forgets what is known of {@code ufsUri}: its status and its listing. */
  public void invalidate(String ufsUri) {
    statuses.invalidate(ufsUri);
    listings.invalidate(ufsUri);
    KvStore.Batch batch =
        new KvStore.Batch()
            .delete(KeyLayout.metadataKey(KeyLayout.FILE_STATUS, ufsUri))
            .delete(KeyLayout.metadataKey(KeyLayout.LISTING, ufsUri));
    byte[] head = KeyLayout.metadataKey(KeyLayout.LARGE_LISTING, ufsUri);
    // Rows only where a large listing is: every write invalidates its folder, and a range
    // tombstone per write would slow every read of the store. Rows left without their head are
    // never served, and the next large listing of the folder deletes them first.
    if (store.get(head) != null) {
      byte[] rows = KeyLayout.listingRowsPrefix(ufsUri);
      batch.delete(head).deleteRange(rows, KeyLayout.afterPrefix(rows));
    }
    store.write(batch);
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
    // Large listings at or under it (and, as the ranges go by prefix, of siblings whose names
    // start with its own: forgetting more of a cache than asked loses nothing).
    for (byte kind : new byte[] {KeyLayout.LARGE_LISTING, KeyLayout.LISTING_ROW}) {
      batch.deleteRange(
          KeyLayout.metadataKey(kind, ufsUri),
          KeyLayout.afterPrefix(KeyLayout.metadataKey(kind, below)));
    }
    statuses.asMap().keySet().removeIf(under);
    listings.asMap().keySet().removeIf(under);
    store.write(batch);
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
