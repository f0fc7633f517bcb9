package io.strata.master.state;

import com.google.common.hash.Hashing;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.journal.ClusterStateSnapshot;
import io.strata.core.ufs.Mount;

/**
 * Everything the master group replicates: membership and mounts (configuration overrides and
 * load jobs join later). Small by design: no per-file state. Not thread-safe; the state machine
 * owns it and serializes access.
 */
public final class ClusterState {
  private final Membership membership = new Membership();
  private final Mounts mounts = new Mounts();

  public Membership membership() {
    return membership;
  }

  public Mounts mounts() {
    return mounts;
  }

  public ClusterView view() {
    ClusterView.Builder b = ClusterView.newBuilder()
        .setMembershipVersion(membership.version())
        .setMountTableVersion(mounts.version())
        .addAllWorkers(membership.all());
    mounts.all().forEach(m -> b.addMounts(m.toProto()));
    return b.build();
  }

  public ClusterStateSnapshot snapshot() {
    ClusterStateSnapshot.Builder b = ClusterStateSnapshot.newBuilder()
        .addAllWorkers(membership.all())
        .setMembershipVersion(membership.version())
        .setMountTableVersion(mounts.version());
    mounts.all().forEach(m -> b.addMounts(m.toProto()));
    return b.build();
  }

  public void restore(ClusterStateSnapshot s) {
    membership.restore(s.getWorkersList(), s.getMembershipVersion());
    mounts.restore(s.getMountsList().stream().map(Mount::fromProto).toList(), s.getMountTableVersion());
  }

  /** A digest of the whole state: equal on every master that applied the same log. */
  public String digest() {
    return Hashing.sha256().hashBytes(snapshot().toByteArray()).toString();
  }
}
