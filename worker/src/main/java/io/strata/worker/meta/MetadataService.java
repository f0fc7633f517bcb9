package io.strata.worker.meta;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.ufs.UfsManager;
import io.strata.worker.ufs.UfsManager.Resolved;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File statuses and listings for the paths this worker owns: from the cache when fresh enough, else
 * from the UFS (and then cached). Changes made through this worker invalidate what they touch.
 * Thread-safe.
 */
public final class MetadataService {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataService.class);

  private final UfsManager ufs;
  private final MetadataCache cache;
  private final ListingReads reads;
  private final MetadataWatchers watchers = new MetadataWatchers();
  private final AtomicLong forgettings = new AtomicLong();
  private final Counter hits;
  private final Counter misses;

  public MetadataService(UfsManager ufs, MetadataCache cache, MeterRegistry registry) {
    this.ufs = ufs;
    this.cache = cache;
    this.reads = new ListingReads(cache);
    this.hits =
        Counter.builder(WorkerMetrics.METADATA_REQUESTS)
            .tag("result", "hit")
            .description("Metadata look-ups, by whether the cache answered")
            .register(registry);
    this.misses =
        Counter.builder(WorkerMetrics.METADATA_REQUESTS)
            .tag("result", "miss")
            .description("Metadata look-ups, by whether the cache answered")
            .register(registry);
  }

  /**
   * The status of {@code path}; NOT_FOUND if it does not exist.
   *
   * @param syncIntervalMs re-read the UFS if the cached entry is older than this (-1: trust the
   *     TTL)
   */
  public FileStatus getStatus(StrataPath path, long syncIntervalMs) {
    Resolved r = ufs.resolve(path);
    MetadataCache.StatusEntry cached = cached(path, r, syncIntervalMs, false);
    if (cached != null && fresh(cached.loadedAtMs(), cache.ttlOf(cached), syncIntervalMs)) {
      hits.increment();
      if (cached.status() == null) {
        throw StrataException.notFound(path + " does not exist");
      }
      return stamped(cached.status(), cached.loadedAtMs(), cache.ttlOf(cached), syncIntervalMs);
    }
    misses.increment();
    long loadedAt = cache.now();
    try {
      FileStatus status = r.ufs().getStatus(r.ufsPath()).toProto(path, r.ufsUri());
      cache.putStatus(r.ufsUri(), status, loadedAt);
      // Just read: fresh for the whole positive TTL (which listings share).
      return stamped(status, loadedAt, cache.listingTtl(), syncIntervalMs);
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        cache.putStatus(r.ufsUri(), null, loadedAt);
        throw StrataException.notFound(path + " does not exist");
      }
      throw e;
    }
  }

  /**
   * The status of {@code path} when the in-memory cache holds it fresh: no RocksDB, no UFS, so an
   * event loop may ask. Empty when it does not; NOT_FOUND when it fresh-knows the path is missing.
   */
  public java.util.Optional<FileStatus> statusInMemory(StrataPath path, long syncIntervalMs) {
    Resolved r = ufs.resolve(path);
    MetadataCache.StatusEntry cached = cached(path, r, syncIntervalMs, true);
    if (cached == null || !fresh(cached.loadedAtMs(), cache.ttlOf(cached), syncIntervalMs)) {
      return java.util.Optional.empty();
    }
    hits.increment();
    if (cached.status() == null) {
      throw StrataException.notFound(path + " does not exist");
    }
    return java.util.Optional.of(
        stamped(cached.status(), cached.loadedAtMs(), cache.ttlOf(cached), syncIntervalMs));
  }

  /**
   * What is cached of {@code path}: its own entry when fresh, else its entry in its folder's fresh
   * listing (a data set's files are listed, then each opened: the listing read their statuses
   * already, and an open then costs no look-up in the UFS, no write to the store and no hand-off
   * from the event loop), else its own entry, stale or null.
   */
  private MetadataCache.StatusEntry cached(
      StrataPath path, Resolved r, long syncIntervalMs, boolean memoryOnly) {
    MetadataCache.StatusEntry own =
        memoryOnly ? cache.statusInMemory(r.ufsUri()) : cache.status(r.ufsUri());
    if ((own != null && fresh(own.loadedAtMs(), cache.ttlOf(own), syncIntervalMs))
        || path.isRoot()) {
      return own;
    }
    Resolved folder = ufs.resolve(path.parent());
    if (!r.ufsUri().equals(folder.ufsUri() + "/" + path.name())) {
      return own; // a mount point: its folder's store lists what the mount hides
    }
    MetadataCache.StatusEntry listed =
        cache.childOfListing(folder.ufsUri(), path.name(), memoryOnly);
    return listed != null && fresh(listed.loadedAtMs(), cache.listingTtl(), syncIntervalMs)
        ? listed
        : own;
  }

  /** {@code s} with how much longer this worker would serve it as it is (fresh_for_ms). */
  private FileStatus stamped(FileStatus s, long loadedAtMs, Duration ttl, long syncIntervalMs) {
    return s.toBuilder().setFreshForMs(freshFor(loadedAtMs, ttl, syncIntervalMs)).build();
  }

  /** At least 1 ms: 0 would say nothing, and a worker that caches nothing still says so. */
  private long freshFor(long loadedAtMs, Duration ttl, long syncIntervalMs) {
    long limit = syncIntervalMs < 0 ? ttl.toMillis() : Math.min(ttl.toMillis(), syncIntervalMs);
    return Math.max(1, limit - (cache.now() - loadedAtMs));
  }

  /**
   * A folder's children and how much longer this worker would serve the listing as it is (the least
   * of its own and of the mounts' in it).
   */
  public record Listing(List<FileStatus> children, long freshForMs) {}

  /**
   * The children of directory {@code path}, sorted by name: what its store lists, and the mounts
   * right below it (each as its store's root; a mount hides an entry of the same name).
   */
  public Listing list(StrataPath path, long syncIntervalMs) {
    Listing store = listStore(path, syncIntervalMs);
    List<StrataPath> points = ufs.mountPointsIn(path);
    if (points.isEmpty()) {
      return store;
    }
    long freshFor = store.freshForMs();
    TreeMap<String, FileStatus> byName = new TreeMap<>();
    store.children().forEach(c -> byName.put(c.getName(), c));
    for (StrataPath point : points) {
      try {
        FileStatus mount = getStatus(point, syncIntervalMs);
        byName.put(point.name(), mount);
        freshFor = Math.min(freshFor, mount.getFreshForMs());
      } catch (StrataException e) {
        // Its store cannot answer now: a look-up of the mount itself says why.
        LOG.debug("listing {}: mount {} left out: {}", path, point, e.oneLine());
      }
    }
    return new Listing(List.copyOf(byName.values()), freshFor);
  }

  /**
   * A page of a folder's children: at most {@code limit} whose names sort after {@code startAfter}.
   * A folder of more than {@value MetadataCache#MAX_CACHED_LISTING} entries is kept as rows in the
   * store, read from its under-storage once per TTL, and each page is read from the rows at its
   * place (names in the order of their UTF-8 bytes), so that paging through it costs its length,
   * not its length for every page; a smaller one is a slice of the cached listing.
   */
  public Listing listPage(StrataPath path, long syncIntervalMs, String startAfter, int limit) {
    if (ufs.mountPointsIn(path).isEmpty()) {
      Resolved r = ufs.resolve(path);
      if (cache.listing(r.ufsUri()) == null) {
        MetadataCache.LargeListing large = freshLarge(r, syncIntervalMs);
        if (large != null) {
          hits.increment();
        } else {
          // Not cached: read it now (kept as rows if it is large).
          misses.increment();
          Listing small = read(path, r, syncIntervalMs);
          if (small != null) {
            return new Listing(slice(small.children(), startAfter, limit), small.freshForMs());
          }
          large = justStored(r);
        }
        return new Listing(
            cache.largeListingPage(r.ufsUri(), startAfter, limit),
            freshFor(large.loadedAtMs(), cache.largeListingTtl(), syncIntervalMs));
      }
    }
    Listing all = list(path, syncIntervalMs);
    return new Listing(slice(all.children(), startAfter, limit), all.freshForMs());
  }

  private MetadataCache.LargeListing freshLarge(Resolved r, long syncIntervalMs) {
    MetadataCache.LargeListing large = cache.largeListing(r.ufsUri());
    return large != null && fresh(large.loadedAtMs(), cache.largeListingTtl(), syncIntervalMs)
        ? large
        : null;
  }

  /** The children (sorted by name) after {@code startAfter}, at most {@code limit} (0: all). */
  public static List<FileStatus> slice(List<FileStatus> children, String startAfter, int limit) {
    int from = 0;
    if (!startAfter.isEmpty()) {
      int lo = 0;
      int hi = children.size();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (children.get(mid).getName().compareTo(startAfter) <= 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      from = lo;
    }
    int to = limit > 0 ? (int) Math.min(children.size(), (long) from + limit) : children.size();
    return children.subList(from, to);
  }

  private Listing listStore(StrataPath path, long syncIntervalMs) {
    Resolved r = ufs.resolve(path);
    MetadataCache.ListingEntry cached = cache.listing(r.ufsUri());
    if (cached != null && fresh(cached.loadedAtMs(), cache.listingTtl(), syncIntervalMs)) {
      hits.increment();
      return new Listing(
          cached.children(), freshFor(cached.loadedAtMs(), cache.listingTtl(), syncIntervalMs));
    }
    MetadataCache.LargeListing large = freshLarge(r, syncIntervalMs);
    if (large != null) {
      // A caller that wants it whole gets it whole, from the rows rather than the store.
      hits.increment();
      return new Listing(
          cache.largeListingPage(r.ufsUri(), "", Integer.MAX_VALUE),
          freshFor(large.loadedAtMs(), cache.largeListingTtl(), syncIntervalMs));
    }
    misses.increment();
    Listing small = read(path, r, syncIntervalMs);
    if (small != null) {
      return small;
    }
    large = justStored(r);
    return new Listing(
        cache.largeListingPage(r.ufsUri(), "", Integer.MAX_VALUE),
        freshFor(large.loadedAtMs(), cache.largeListingTtl(), syncIntervalMs));
  }

  /**
   * The large listing {@link #read} just stored (served whatever the sync interval asks: it is as
   * fresh as can be); UNAVAILABLE if a change to the folder forgot it in between.
   */
  private MetadataCache.LargeListing justStored(Resolved r) {
    MetadataCache.LargeListing large = cache.largeListing(r.ufsUri());
    if (large == null) {
      throw StrataException.unavailable(
          "the listing of " + r.ufsUri() + " changed while it was read; ask again", null);
    }
    return large;
  }

  /**
   * Reads the listing of {@code path} from its store and caches it ({@link ListingReads}): returned
   * if it is short enough for memory, else null (kept as rows in the store).
   */
  private Listing read(StrataPath path, Resolved r, long syncIntervalMs) {
    long loadedAt = cache.now();
    List<FileStatus> children = reads.read(path, r, loadedAt);
    return children == null
        ? null
        : new Listing(children, freshFor(loadedAt, cache.listingTtl(), syncIntervalMs));
  }

  /**
   * One page of the files under folder {@code path} at any depth, in the store's key order: those
   * after the file {@code startAfter} (a full path under {@code path}, "" from the start), at most
   * {@code limit}. Straight from the store, and not cached: a load walks a tree once.
   */
  public List<FileStatus> listFiles(StrataPath path, String startAfter, int limit) {
    Resolved r = ufs.resolve(path);
    String prefix = path.isRoot() ? "/" : path + "/";
    if (!startAfter.isEmpty() && !startAfter.startsWith(prefix)) {
      throw StrataException.invalidArgument(startAfter + " is not under " + path);
    }
    String after = startAfter.isEmpty() ? "" : startAfter.substring(prefix.length());
    return r.ufs().listFiles(r.ufsPath(), after, limit).stream()
        .map(s -> s.toProto(StrataPath.of(prefix + s.name()), r.ufsUri() + "/" + s.name()))
        .toList();
  }

  /**
   * How many times this worker forgot metadata that may have granted access (a change to a path, a
   * tree, a mount, the TTLs): a permission found with an older count may rest on what it forgot.
   */
  public long forgettings() {
    return forgettings.get();
  }

  /** How long a status read from the UFS is trusted: what a permission found from it rests on. */
  public Duration statusTtl() {
    return cache.listingTtl();
  }

  /** Forgets {@code path} and the listing of its parent, after a change to it. */
  public void invalidate(StrataPath path) {
    forgettings.incrementAndGet();
    forget(path);
    watchers.dropped(List.of(path.toString()), false);
  }

  private void forget(StrataPath path) {
    cache.invalidate(ufs.resolve(path).ufsUri());
    if (!path.isRoot()) {
      cache.invalidate(ufs.resolve(path.parent()).ufsUri());
    }
  }

  /**
   * Forgets {@code path} after it was created, and every ancestor up to the first this worker knows
   * exists: a create with parents may have made them, and this worker may remember them as missing
   * (or their folders' listings without them).
   */
  public void created(StrataPath path) {
    List<String> dropped = new java.util.ArrayList<>();
    forget(path);
    dropped.add(path.toString());
    for (StrataPath a = path.parent(); !a.isRoot(); a = a.parent()) {
      String uri = ufs.resolve(a).ufsUri();
      MetadataCache.StatusEntry cached = cache.status(uri);
      if (cached != null && cached.status() != null) {
        break;
      }
      forget(a);
      dropped.add(a.toString());
    }
    watchers.dropped(dropped, false);
  }

  /** Younger than the TTL now in force, and than the request's sync interval if it gave one. */
  private boolean fresh(long loadedAtMs, java.time.Duration ttl, long syncIntervalMs) {
    long age = cache.now() - loadedAtMs;
    return age < ttl.toMillis() && (syncIntervalMs < 0 || age < syncIntervalMs);
  }

  /**
   * Forgets what is cached of {@code path} and everything under it, so that the next look-up asks
   * the UFS; returns the statuses of the files it knew there.
   */
  public java.util.List<FileStatus> invalidateTree(StrataPath path) {
    forgettings.incrementAndGet();
    java.util.List<FileStatus> files = cache.forgetUnder(ufs.resolve(path).ufsUri());
    if (!path.isRoot()) {
      cache.invalidate(ufs.resolve(path.parent()).ufsUri());
    }
    watchers.dropped(List.of(path.toString()), true);
    return files;
  }

  /**
   * Forgets what is cached under the UFS URI {@code ufsUri} (a mount went); the files it knew
   * there. Watchers forget everything: a mount's paths are not known here by their Strata names.
   */
  public java.util.List<FileStatus> forgetUfs(String ufsUri) {
    forgettings.incrementAndGet();
    java.util.List<FileStatus> files = cache.forgetUnder(ufsUri);
    watchers.droppedAll();
    return files;
  }

  /**
   * New TTLs apply at once; watchers forget everything, since they keep statuses for as long as the
   * old TTL said.
   */
  public void setTtl(Duration positive, Duration negative) {
    forgettings.incrementAndGet();
    cache.setTtl(positive, negative);
    watchers.droppedAll();
  }

  /** The clients watching this worker's invalidations. */
  public MetadataWatchers watchers() {
    return watchers;
  }
}
