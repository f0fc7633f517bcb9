package io.strata.master.state;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicy;
import io.strata.core.status.StatusCode;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * Pins and TTLs by path ({@code fs pin}, {@code fs setTtl}): what the workers do with the cached
 * data of a path and everything under it. A path with neither is not kept. Bounded in number, for
 * it travels in every cluster view. Not thread-safe: only the state machine touches it.
 */
public final class PathPolicies {
  /** Policies are set on a dataset's folders, not file by file. */
  public static final int MAX = 10_000;

  /**
   * The bytes of all policies' paths: every cluster view carries them (a view is capped at 8 MiB),
   * and 10,000 paths of 16 KiB each would let any user make every view too large to fetch.
   */
  public static final int MAX_BYTES = 1 << 20;

  /** The longest path a policy is set on: a folder of a dataset, as the kernel takes one. */
  public static final int MAX_PATH_BYTES = 4096;

  private final TreeMap<StrataPath, PathPolicy> policies = new TreeMap<>();
  private long version;
  private long bytes;

  /**
   * Sets {@code pinned} and {@code ttlMs} of {@code path} where not null (a TTL of 0 removes it).
   * Unpinning a path that is not pinned, or removing a TTL it does not have, is refused: the
   * operator is told (for instance that the pin is on a parent folder).
   */
  public ApplyResult set(String path, Boolean pinned, Long ttlMs) {
    StrataPath p = StrataPath.of(path);
    PathPolicy old =
        policies.getOrDefault(p, PathPolicy.newBuilder().setPath(p.toString()).build());
    if (Boolean.FALSE.equals(pinned) && !old.getPinned()) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, p + " is not pinned" + whereElse(p, true));
    }
    if (ttlMs != null && ttlMs == 0 && old.getTtlMs() == 0) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, p + " has no TTL" + whereElse(p, false));
    }
    if (ttlMs != null && ttlMs < 0) {
      return ApplyResult.refused(StatusCode.INVALID_ARGUMENT, "a TTL is positive: " + ttlMs);
    }
    PathPolicy.Builder b = old.toBuilder();
    if (pinned != null) {
      b.setPinned(pinned);
    }
    if (ttlMs != null) {
      b.setTtlMs(ttlMs);
    }
    PathPolicy updated = b.build();
    if (updated.equals(old) && policies.containsKey(p)) {
      return ApplyResult.OK;
    }
    int size = p.toString().getBytes(StandardCharsets.UTF_8).length;
    if (!updated.getPinned() && updated.getTtlMs() == 0) {
      if (policies.remove(p) != null) {
        bytes -= size;
      }
    } else {
      if (!policies.containsKey(p)) {
        if (size > MAX_PATH_BYTES) {
          return ApplyResult.refused(
              StatusCode.INVALID_ARGUMENT,
              "a pin or TTL is set on a folder of at most "
                  + MAX_PATH_BYTES
                  + " bytes, not "
                  + size);
        }
        if (policies.size() >= MAX || bytes + size > MAX_BYTES) {
          return ApplyResult.refused(
              StatusCode.RESOURCE_EXHAUSTED,
              "the cluster holds "
                  + policies.size()
                  + " pins and TTLs ("
                  + bytes
                  + " bytes of paths) already, the most it keeps; set them on a parent folder");
        }
        bytes += size;
      }
      policies.put(p, updated);
    }
    version++;
    return ApplyResult.OK;
  }

  /** ", but <parent> is" when a parent folder has what {@code p} has not. */
  private String whereElse(StrataPath p, boolean pin) {
    if (p.isRoot()) {
      return "";
    }
    for (StrataPath at = p.parent(); ; at = at.parent()) {
      PathPolicy up = policies.get(at);
      if (up != null && (pin ? up.getPinned() : up.getTtlMs() > 0)) {
        return " (its folder " + at + (pin ? " is pinned)" : " has a TTL)");
      }
      if (at.isRoot()) {
        return "";
      }
    }
  }

  public Collection<PathPolicy> all() {
    return policies.values();
  }

  public long version() {
    return version;
  }

  void restore(List<PathPolicy> restored, long restoredVersion) {
    policies.clear();
    restored.forEach(p -> policies.put(StrataPath.of(p.getPath()), p));
    bytes =
        policies.keySet().stream()
            .mapToLong(p -> p.toString().getBytes(StandardCharsets.UTF_8).length)
            .sum();
    version = restoredVersion;
  }
}
