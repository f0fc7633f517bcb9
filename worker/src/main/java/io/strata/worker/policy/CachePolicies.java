package io.strata.worker.policy;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicy;
import io.strata.worker.page.CachedVersions;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PagePins;
import io.strata.worker.page.PageStore;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's side of pins and TTLs ({@code fs pin}, {@code fs setTtl}): the cluster's policies,
 * as the master replicates them, applied to what this worker caches. Files are found through the
 * versions the page store noted ({@link CachedVersions}), by the under-storage URI each policy's
 * path resolves to.
 *
 * <ul>
 *   <li>A pinned file's pages are passed over by eviction, up to the pin capacity (a share of the
 *       cache); files beyond it, in path order, are cached but evicted like others, and counted.
 *   <li>A file under a TTL is freed from the cache (never deleted from its under-storage) once that
 *       long has passed since this worker first cached it; the nearest TTL above a file applies.
 * </ul>
 *
 * <p>{@link #check} runs on one thread (the worker's scheduler), at each change of policies or
 * mounts and every few seconds; {@link #pinned} is asked by eviction and answers from memory.
 */
public final class CachePolicies implements PagePins {
  private static final Logger LOG = LoggerFactory.getLogger(CachePolicies.class);

  /** What this worker holds of pinned files, for its heartbeat. */
  public record PinUsage(long pinnedBytes, long capacityBytes, long overCapacityBytes) {}

  private record Rule(String ufsUri, PathPolicy policy) {}

  private final UfsManager ufs;
  private final PageStore store;
  private final PageFetcher fetcher;
  private final IntSupplier pinPercent;
  private final LongSupplier nowMs;

  private volatile List<PathPolicy> policies = List.of();
  private volatile long version;
  private volatile Set<PageId.FileKey> kept = ConcurrentHashMap.newKeySet();

  /** Guards the swap of {@link #kept} against files kept meanwhile ({@link #cached}). */
  private final Object keptLock = new Object();

  /** Files kept by {@link #cached} since the current count began. */
  private final Set<PageId.FileKey> keptSinceCount = new HashSet<>();

  private volatile PinUsage usage = new PinUsage(0, 0, 0);
  private volatile List<Rule> pinRules = List.of();

  public CachePolicies(
      UfsManager ufs,
      PageStore store,
      PageFetcher fetcher,
      IntSupplier pinPercent,
      LongSupplier nowMs) {
    this.ufs = ufs;
    this.store = store;
    this.fetcher = fetcher;
    this.pinPercent = pinPercent;
    this.nowMs = nowMs;
    store.versions().listen(this::cached);
  }

  /** The version of the policies applied ({@code ClusterView.policy_version}). */
  public long version() {
    return version;
  }

  /** The cluster's policies changed: applied at once. */
  public synchronized void update(List<PathPolicy> next, long nextVersion) {
    policies = List.copyOf(next);
    version = nextVersion;
    store.pins(next.stream().anyMatch(PathPolicy::getPinned) ? this : PagePins.NONE);
    check();
    LOG.info(
        "applied pins and TTLs version {}: {} paths; keeping {} bytes of pinned files",
        nextVersion,
        next.size(),
        usage.pinnedBytes());
  }

  public PinUsage usage() {
    return usage;
  }

  @Override
  public boolean pinned(PageId id) {
    Set<PageId.FileKey> k = kept;
    return !k.isEmpty() && k.contains(new PageId.FileKey(id.keyHigh(), id.keyLow()));
  }

  /** Frees what outlived its TTL and recounts what is pinned. */
  public synchronized void check() {
    List<Rule> rules = rules();
    try {
      freeExpired(rules);
      countPinned(rules);
    } catch (RuntimeException e) {
      LOG.warn("cannot apply pins and TTLs: {}", e.toString());
    }
  }

  private List<Rule> rules() {
    List<Rule> rules = new ArrayList<>();
    for (PathPolicy p : policies) {
      Optional<String> uri = ufs.ufsUriOf(StrataPath.of(p.getPath()));
      uri.ifPresent(u -> rules.add(new Rule(u, p)));
    }
    // Longest first: the nearest policy above a file comes first.
    rules.sort(Comparator.comparingInt((Rule r) -> r.ufsUri().length()).reversed());
    return rules;
  }

  private void freeExpired(List<Rule> rules) {
    long now = nowMs.getAsLong();
    for (Rule rule : rules) {
      if (rule.policy().getTtlMs() == 0) {
        continue;
      }
      List<CachedVersions.Version> expired = new ArrayList<>();
      for (CachedVersions.Version v : store.versions().under(rule.ufsUri())) {
        if (rule.equals(nearestTtl(rules, v.ufsUri()))
            && v.notedAtMs() + rule.policy().getTtlMs() <= now) {
          expired.add(v);
        }
      }
      long bytes = fetcher.files().free(expired);
      store.versions().forget(expired);
      if (bytes > 0) {
        LOG.info(
            "freed {} bytes of {} files under {}: their TTL of {} ms passed",
            bytes,
            expired.size(),
            rule.policy().getPath(),
            rule.policy().getTtlMs());
      }
    }
  }

  private static Rule nearestTtl(List<Rule> rules, String fileUri) {
    for (Rule r : rules) {
      if (r.policy().getTtlMs() > 0 && under(fileUri, r.ufsUri())) {
        return r;
      }
    }
    return null;
  }

  /**
   * Which pinned files eviction keeps: in path order, while their cached bytes fit in the pin
   * capacity.
   */
  private void countPinned(List<Rule> rules) {
    List<Rule> pins = rules.stream().filter(r -> r.policy().getPinned()).toList();
    synchronized (keptLock) {
      pinRules = pins;
      keptSinceCount.clear();
    }
    Map<PageId.FileKey, CachedVersions.Version> files = new LinkedHashMap<>();
    pins.stream()
        .flatMap(r -> store.versions().under(r.ufsUri()).stream())
        .sorted(Comparator.comparing(CachedVersions.Version::ufsUri))
        .forEach(v -> files.putIfAbsent(key(v), v));
    long capacity = store.capacityBytes() * pinPercent.getAsInt() / 100;
    long pinned = 0;
    long over = 0;
    Set<PageId.FileKey> keep = ConcurrentHashMap.newKeySet();
    for (Map.Entry<PageId.FileKey, CachedVersions.Version> f : files.entrySet()) {
      long bytes = fetcher.files().cachedBytes(f.getKey(), f.getValue().length());
      if (pinned + bytes <= capacity) {
        pinned += bytes;
        keep.add(f.getKey());
      } else {
        over += bytes;
      }
    }
    synchronized (keptLock) {
      // A file first cached while this count ran is not in it: kept all the same.
      keep.addAll(keptSinceCount);
      kept = keep;
      usage = new PinUsage(pinned, capacity, over);
    }
  }

  /** A file cached for the first time since this worker started: kept at once if pinned. */
  private void cached(CachedVersions.Version v) {
    PageId.FileKey key = key(v);
    synchronized (keptLock) {
      PinUsage u = usage;
      if (kept.contains(key)
          || pinRules.stream().noneMatch(r -> under(v.ufsUri(), r.ufsUri()))
          || u.pinnedBytes() + v.length() > u.capacityBytes()) {
        return;
      }
      // Counted in full until the next check counts what is cached of it.
      usage = new PinUsage(u.pinnedBytes() + v.length(), u.capacityBytes(), u.overCapacityBytes());
      kept.add(key);
      keptSinceCount.add(key);
    }
  }

  private PageId.FileKey key(CachedVersions.Version v) {
    return fetcher.files().key(v.ufsUri(), v.fingerprint());
  }

  private static boolean under(String fileUri, String ruleUri) {
    return fileUri.equals(ruleUri)
        || fileUri.startsWith(ruleUri.endsWith("/") ? ruleUri : ruleUri + "/");
  }
}
