package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Comparator;
import java.util.List;

/**
 * The mounts of the namespace, answering which under-storage holds a Strata path. The deepest mount
 * containing the path wins. Immutable; the master's replicated state is the source.
 */
public final class MountTable {
  /** A Strata path resolved to its mount and its path inside that mount's UFS. */
  public record Resolution(Mount mount, StrataPath ufsPath) {
    /** The UFS location as one URI, e.g. {@code file:///data/a/b}; identifies cached pages. */
    public String ufsUri() {
      return ufsPath.isRoot() ? mount.ufsUri() : mount.ufsUri() + ufsPath;
    }
  }

  private final List<Mount> mounts;
  private final long version;

  public MountTable(List<Mount> mounts, long version) {
    this.mounts =
        mounts.stream()
            .sorted(Comparator.comparingInt((Mount m) -> m.path().depth()).reversed())
            .toList();
    this.version = version;
  }

  public static MountTable fromProto(List<MountPoint> points, long version) {
    return new MountTable(points.stream().map(Mount::fromProto).toList(), version);
  }

  public long version() {
    return version;
  }

  public List<Mount> mounts() {
    return mounts;
  }

  public Resolution resolve(StrataPath path) {
    for (Mount m : mounts) {
      if (path.isUnder(m.path())) {
        return new Resolution(m, StrataPath.of("/" + path.relativeTo(m.path())));
      }
    }
    throw new StrataException(
        StatusCode.UNAVAILABLE, "no mount holds " + path + " (the root is not mounted yet)");
  }
}
