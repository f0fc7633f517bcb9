package io.strata.master.state;

import com.google.common.hash.Hashing;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.journal.ClusterStateSnapshot;
import io.strata.core.proto.journal.ConfOverride;
import io.strata.core.ufs.Mount;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the master group replicates: membership, mounts, configuration overrides, load jobs,
 * pins and TTLs. Small by design: no per-file state. Not thread-safe; the state machine owns it and
 * serializes access.
 */
public final class ClusterState {
  private final Membership membership = new Membership();
  private final Mounts mounts = new Mounts();
  private final ConfOverrides conf = new ConfOverrides();
  private final LoadJobs loads = new LoadJobs();
  private final PathPolicies policies = new PathPolicies();

  public Membership membership() {
    return membership;
  }

  public Mounts mounts() {
    return mounts;
  }

  public ConfOverrides conf() {
    return conf;
  }

  public LoadJobs loads() {
    return loads;
  }

  public PathPolicies policies() {
    return policies;
  }

  public ClusterView view() {
    ClusterView.Builder b =
        ClusterView.newBuilder()
            .setMembershipVersion(membership.version())
            .setMountTableVersion(mounts.version())
            .addAllWorkers(membership.all())
            .setConfHash(conf.hash())
            .addAllPolicies(policies.all())
            .setPolicyVersion(policies.version());
    mounts.all().forEach(m -> b.addMounts(m.toProto()));
    return b.build();
  }

  public ClusterStateSnapshot snapshot() {
    ClusterStateSnapshot.Builder b =
        ClusterStateSnapshot.newBuilder()
            .addAllWorkers(membership.all())
            .setMembershipVersion(membership.version())
            .setMountTableVersion(mounts.version())
            .setConfVersion(conf.version())
            .addAllLoads(loads.all())
            .addAllPolicies(policies.all())
            .setPolicyVersion(policies.version());
    mounts.all().forEach(m -> b.addMounts(m.toProto()));
    conf.values().forEach((k, v) -> b.addConf(ConfOverride.newBuilder().setKey(k).setValue(v)));
    return b.build();
  }

  public void restore(ClusterStateSnapshot s) {
    membership.restore(s.getWorkersList(), s.getMembershipVersion());
    mounts.restore(
        s.getMountsList().stream().map(Mount::fromProto).toList(), s.getMountTableVersion());
    Map<String, String> overrides = new TreeMap<>();
    s.getConfList().forEach(o -> overrides.put(o.getKey(), o.getValue()));
    conf.restore(overrides, s.getConfVersion());
    loads.restore(s.getLoadsList());
    policies.restore(s.getPoliciesList(), s.getPolicyVersion());
  }

  /** A digest of the whole state: equal on every master that applied the same log. */
  public String digest() {
    return Hashing.sha256().hashBytes(snapshot().toByteArray()).toString();
  }
}
