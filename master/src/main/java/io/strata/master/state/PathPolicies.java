package io.strata.master.state;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicy;
import io.strata.core.status.StatusCode;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  /**
   * What one user may hold, and all users together: no user fills the cluster's policies for the
   * others, and users together leave room for the admins'.
   */
  public static final int MAX_PER_USER = 1_000;

  public static final int MAX_BYTES_PER_USER = 128 << 10;
  public static final int MAX_FOR_USERS = MAX / 2;
  public static final int MAX_BYTES_FOR_USERS = MAX_BYTES / 2;

  /** The owner key of policies set by admins and the cluster: counted in the totals only. */
  private static final String NO_USER = "";

  /** The longest path a policy is set on: a folder of a dataset, as the kernel takes one. */
  public static final int MAX_PATH_BYTES = 4096;

  private final TreeMap<StrataPath, PathPolicy> policies = new TreeMap<>();
  private long version;

  /** Policies and bytes of paths by owner ({@link #NO_USER} for admins and the cluster). */
  private final Map<String, Share> shares = new HashMap<>();

  private final Share all = new Share();
  private final Share users = new Share();

  /** How many policies, and bytes of their paths, someone holds. */
  private static final class Share {
    int count;
    long bytes;

    void add(int sign, int size) {
      count += sign;
      bytes += (long) sign * size;
    }
  }

  /**
   * Sets {@code pinned} and {@code ttlMs} of {@code path} where not null (a TTL of 0 removes it).
   * Unpinning a path that is not pinned, or removing a TTL it does not have, is refused: the
   * operator is told (for instance that the pin is on a parent folder). A new policy counts against
   * {@code owner}'s share (empty: an admin or the cluster), whoever changes it later.
   */
  public ApplyResult set(String path, Boolean pinned, Long ttlMs, String owner) {
    StrataPath p = StrataPath.of(path);
    PathPolicy old =
        policies.getOrDefault(
            p, PathPolicy.newBuilder().setPath(p.toString()).setOwner(owner).build());
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
        count(updated.getOwner(), -1, size);
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
        ApplyResult full = roomFor(owner, size);
        if (full != null) {
          return full;
        }
        count(owner, 1, size);
      }
      policies.put(p, updated);
    }
    version++;
    return ApplyResult.OK;
  }

  /** Null if {@code owner} may add a policy of a path of {@code size} bytes; else the refusal. */
  private ApplyResult roomFor(String owner, int size) {
    if (all.count >= MAX || all.bytes + size > MAX_BYTES) {
      return full("the cluster holds " + all.count, all.bytes, "the most it keeps");
    }
    if (owner.equals(NO_USER)) {
      return null;
    }
    Share own = shares.getOrDefault(owner, new Share());
    if (own.count >= MAX_PER_USER || own.bytes + size > MAX_BYTES_PER_USER) {
      return full(owner + " holds " + own.count, own.bytes, "the most one user may");
    }
    if (users.count >= MAX_FOR_USERS || users.bytes + size > MAX_BYTES_FOR_USERS) {
      return full("users hold " + users.count, users.bytes, "the most users may together");
    }
    return null;
  }

  private static ApplyResult full(String who, long bytes, String limit) {
    return ApplyResult.refused(
        StatusCode.RESOURCE_EXHAUSTED,
        who
            + " pins and TTLs ("
            + bytes
            + " bytes of paths) already, "
            + limit
            + "; set them on a parent folder");
  }

  private void count(String owner, int sign, int size) {
    all.add(sign, size);
    if (!owner.equals(NO_USER)) {
      users.add(sign, size);
    }
    Share own = shares.computeIfAbsent(owner, o -> new Share());
    own.add(sign, size);
    if (own.count == 0) {
      shares.remove(owner);
    }
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
    shares.clear();
    all.count = 0;
    all.bytes = 0;
    users.count = 0;
    users.bytes = 0;
    for (PathPolicy p : restored) {
      StrataPath path = StrataPath.of(p.getPath());
      policies.put(path, p);
      count(p.getOwner(), 1, path.toString().getBytes(StandardCharsets.UTF_8).length);
    }
    version = restoredVersion;
  }
}
