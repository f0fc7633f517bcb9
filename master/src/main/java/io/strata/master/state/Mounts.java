package io.strata.master.state;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * The mount table: which under-storage is attached at which Strata path. The root mount comes from
 * configuration and cannot be removed. Not thread-safe: only the state machine touches it.
 */
public final class Mounts {
  private final TreeMap<StrataPath, Mount> mounts = new TreeMap<>();
  private long version;

  public ApplyResult add(Mount mount, boolean replace) {
    Mount old = mounts.get(mount.path());
    if (old != null && !replace) {
      return ApplyResult.refused(
          StatusCode.ALREADY_EXISTS, "a mount already exists at " + mount.path());
    }
    if (!mount.path().isRoot() && !mounts.containsKey(StrataPath.ROOT)) {
      return ApplyResult.refused(StatusCode.FAILED_PRECONDITION, "the root must be mounted first");
    }
    // Checked here too, where two racing mounts are applied one after the other.
    for (StrataPath other : mounts.keySet()) {
      if (!other.isRoot()
          && !mount.path().isRoot()
          && !other.equals(mount.path())
          && (mount.path().isUnder(other) || other.isUnder(mount.path()))) {
        return ApplyResult.refused(
            StatusCode.FAILED_PRECONDITION,
            "mounts do not nest: " + mount.path() + " and " + other);
      }
    }
    if (!mount.equals(old)) {
      mounts.put(mount.path(), mount);
      version++;
    }
    return ApplyResult.OK;
  }

  public ApplyResult remove(String path) {
    StrataPath p = StrataPath.of(path);
    if (p.isRoot()) {
      return ApplyResult.refused(StatusCode.INVALID_ARGUMENT, "the root mount cannot be removed");
    }
    if (mounts.remove(p) == null) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, "no mount at " + path);
    }
    version++;
    return ApplyResult.OK;
  }

  public Collection<Mount> all() {
    return mounts.values();
  }

  public boolean hasRoot() {
    return mounts.containsKey(StrataPath.ROOT);
  }

  public long version() {
    return version;
  }

  public MountTable table() {
    return new MountTable(List.copyOf(mounts.values()), version);
  }

  void restore(Collection<Mount> restored, long restoredVersion) {
    mounts.clear();
    restored.forEach(m -> mounts.put(m.path(), m));
    version = restoredVersion;
  }
}
