package io.strata.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.strata.core.path.StrataPath;
import io.strata.core.util.Caches;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * Statuses and listings this client asked for lately, so that `ls -l`, a FUSE kernel's repeated
 * look-ups or a framework's exists-then-open cost one round trip, not one per call. A listing also
 * fills the status of each child (where the store lists whole statuses), and an open refreshes the
 * status of its file. Changes made through this client drop what they touch at once.
 *
 * <p>How long an entry is kept: never longer than the worker that gave it would serve it as it is
 * ({@link Fresh#freshForMs}, its strata.worker.metadata.cache.ttl less the entry's age), so this
 * cache never stretches the worker's freshness contract. Unwatched, also no longer than
 * strata.user.metadata.cache.ttl: changes made elsewhere show within it. Watched (a FUSE mount),
 * every worker tells this cache at once of what it drops ({@link #dropped}, from {@code
 * MetadataWatch}), so an entry is kept for as long as its worker would serve it: a file changed
 * through any client, or named by {@code fs invalidate}, is dropped here when it is dropped there,
 * and a change made in the under-storage behind Strata's back shows when the worker's TTL ends, as
 * through the worker itself.
 *
 * <p>An answer is kept only if nothing was dropped while it was fetched ({@link Token}): an event
 * that raced the request may have been about the very entry it brought back. Events take the write
 * side of a lock that puts take the read side of, so a put cannot slip in between an event's count
 * and its drop. A TTL of zero turns the cache off without building it (a shell command, which asks
 * for each status once, would pay only its set-up). Thread-safe.
 */
final class MetadataCache {
  /** An answer and how much longer its worker would serve it as it is (0: not said). */
  record Fresh<T>(T value, long freshForMs) {
    static <T> Fresh<T> unsaid(T value) {
      return new Fresh<>(value, 0);
    }
  }

  /** Taken before a request: whether it may be kept, and for which lifetime. */
  record Token(long drops, boolean watched) {}

  /** Whether every worker that could drop an entry is being watched now. */
  interface Watching {
    boolean healthy();
  }

  private record Kept<V>(V value, long lifeNanos) {}

  private final boolean off;
  private final long ttlMs;
  private final Cache<String, Kept<FileInfo>> statuses;
  private final Cache<String, Kept<List<FileInfo>>> listings;
  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final List<FileSystem.ChangesElsewhere> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile Watching watching = () -> false;
  private volatile boolean untilDropped;

  /** Events that dropped entries so far. Counted under the write lock. */
  private final AtomicLong drops = new AtomicLong();

  MetadataCache(Duration ttl, long maxEntries) {
    this(ttl, maxEntries, Ticker.systemTicker());
  }

  MetadataCache(Duration ttl, long maxEntries, Ticker ticker) {
    this.off = ttl.isZero();
    this.ttlMs = ttl.toMillis();
    this.statuses =
        off
            ? null
            : Caches.builder()
                .ticker(ticker)
                .expireAfter(new KeptFor<FileInfo>())
                .maximumSize(maxEntries)
                .<String, Kept<FileInfo>>build();
    this.listings =
        off
            ? null
            : Caches.builder()
                .ticker(ticker)
                .expireAfter(new KeptFor<List<FileInfo>>())
                .maximumSize(Math.max(1, maxEntries / 10))
                .<String, Kept<List<FileInfo>>>build();
  }

  /** From now on, entries fetched while {@code w} is healthy live as long as their worker says. */
  void watchedBy(Watching w) {
    this.watching = w;
  }

  /**
   * From now on, entries are kept until a change through Strata or {@code fs invalidate} drops
   * them, whatever their worker's TTL: for data sets that never change behind Strata's back.
   */
  void keepUntilDropped() {
    this.untilDropped = true;
  }

  Token token() {
    return new Token(drops.get(), watching.healthy());
  }

  FileInfo status(String path, Function<String, Fresh<FileInfo>> load) {
    Kept<FileInfo> cached = off ? null : statuses.getIfPresent(path);
    if (cached != null) {
      return cached.value();
    }
    Token t = token();
    return remember(t, load.apply(path));
  }

  /**
   * The children of {@code path}; each also fills its own status, unless its store lists only
   * names, lengths and fingerprints (S3's listings leave out the metadata that keeps the rest).
   */
  List<FileInfo> list(String path, Function<String, Fresh<List<FileInfo>>> load) {
    Kept<List<FileInfo>> cached = off ? null : listings.getIfPresent(path);
    if (cached != null) {
      return cached.value();
    }
    Token t = token();
    Fresh<List<FileInfo>> loaded = load.apply(path);
    List<FileInfo> children = List.copyOf(loaded.value());
    long life = lifeNanos(t, loaded.freshForMs());
    if (life > 0) {
      keep(
          t,
          () -> {
            for (FileInfo c : children) {
              if (!c.listedOnly()) {
                statuses.put(c.path(), new Kept<>(c, life));
              }
            }
            listings.put(path, new Kept<>(children, life));
          });
    }
    return children;
  }

  /** Keeps {@code answer}, fetched after {@code t} was taken, unless something dropped since. */
  FileInfo remember(Token t, Fresh<FileInfo> answer) {
    long life = lifeNanos(t, answer.freshForMs());
    if (life > 0) {
      keep(t, () -> statuses.put(answer.value().path(), new Kept<>(answer.value(), life)));
    }
    return answer.value();
  }

  private void keep(Token t, Runnable put) {
    lock.readLock().lock();
    try {
      if (drops.get() == t.drops()) {
        put.run();
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  /** 0: not to be kept. */
  private long lifeNanos(Token t, long freshForMs) {
    if (off) {
      return 0;
    }
    if (untilDropped) {
      return Long.MAX_VALUE;
    }
    long ms;
    if (freshForMs <= 0) {
      ms = ttlMs;
    } else {
      ms = t.watched() ? freshForMs : Math.min(ttlMs, freshForMs);
    }
    return Duration.ofMillis(ms).toNanos();
  }

  /**
   * Drops {@code path}, and its parent's listing and status, after a change to the file: a new,
   * removed or renamed entry changes its folder's times (and a stat of the folder must show it).
   */
  void invalidate(StrataPath path) {
    if (!off) {
      dropping(() -> forget(path));
    }
  }

  private void forget(StrataPath path) {
    statuses.invalidate(path.toString());
    listings.invalidate(path.toString());
    if (!path.isRoot()) {
      statuses.invalidate(path.parent().toString());
      listings.invalidate(path.parent().toString());
    }
  }

  /** Also drops everything under {@code path}, after a folder moved or went (a scan: rare). */
  void invalidateTree(StrataPath path) {
    if (!off) {
      dropping(() -> forgetTree(path));
    }
  }

  private void forgetTree(StrataPath path) {
    String prefix = path.isRoot() ? "/" : path + "/";
    statuses.asMap().keySet().removeIf(k -> k.startsWith(prefix));
    listings.asMap().keySet().removeIf(k -> k.startsWith(prefix));
    forget(path);
  }

  /** A worker dropped {@code paths} (and, {@code recursive}, all below them). */
  void dropped(List<String> paths, boolean recursive) {
    if (off) {
      return;
    }
    dropping(
        () -> {
          for (String p : paths) {
            StrataPath path = StrataPath.of(p);
            if (recursive) {
              forgetTree(path);
            } else {
              forget(path);
            }
          }
        });
    listeners.forEach(l -> l.changed(paths, recursive));
  }

  /** Forgets everything (a watch broke, a worker joined, a mount went). */
  void droppedAll() {
    if (!off) {
      dropping(
          () -> {
            statuses.invalidateAll();
            listings.invalidateAll();
          });
      listeners.forEach(FileSystem.ChangesElsewhere::changedAll);
    }
  }

  /** Tells {@code listener} of what the workers drop from now on. */
  void listen(FileSystem.ChangesElsewhere listener) {
    listeners.add(listener);
  }

  private void dropping(Runnable forget) {
    lock.writeLock().lock();
    try {
      drops.incrementAndGet();
      forget.run();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Caffeine expiry: each entry lives as long as it was given when kept. */
  private static final class KeptFor<V> implements Expiry<String, Kept<V>> {
    @Override
    public long expireAfterCreate(String key, Kept<V> e, long now) {
      return e.lifeNanos();
    }

    @Override
    public long expireAfterUpdate(String key, Kept<V> e, long now, long current) {
      return e.lifeNanos();
    }

    @Override
    public long expireAfterRead(String key, Kept<V> e, long now, long current) {
      return current;
    }
  }
}
