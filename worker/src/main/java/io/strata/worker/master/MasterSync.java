package io.strata.worker.master;

import io.strata.core.conf.ClusterConf;
import io.strata.core.conf.Configuration;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.proto.RegisterWorkerRequest;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerHeartbeatRequest;
import io.strata.core.proto.WorkerHeartbeatResponse;
import io.strata.core.proto.WorkerUsage;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.MountTable;
import io.strata.worker.policy.CachePolicies;
import io.strata.worker.ufs.UfsManager;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's side of membership: register, then heartbeat with cache usage and the hash of the
 * cluster configuration it applied; register again when the master asks, and fetch the mount table
 * with the pins and TTLs, or the configuration, whenever the master's differ from what this worker
 * has. Runs on one scheduler thread. A heartbeat that fails is logged once per outage and retried
 * on the next tick.
 */
public final class MasterSync implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(MasterSync.class);

  private final MasterClient master;
  private final WorkerAddress address;
  private final Supplier<WorkerUsage> usage;
  private final UfsManager ufs;
  private final CachePolicies policies;
  private final Duration callBudget;
  private final Configuration conf;
  private final AtomicLong appliedConfVersion;
  private volatile String appliedConfHash = ClusterConf.hash(Map.of());
  private volatile String workerId;
  private boolean outage;

  public MasterSync(
      MasterClient master,
      WorkerAddress address,
      Supplier<WorkerUsage> usage,
      UfsManager ufs,
      CachePolicies policies,
      Duration callBudget,
      Configuration conf,
      AtomicLong appliedConfVersion) {
    this.conf = conf;
    this.appliedConfVersion = appliedConfVersion;
    this.master = master;
    this.address = address;
    this.usage = usage;
    this.ufs = ufs;
    this.policies = policies;
    this.callBudget = callBudget;
  }

  public boolean registered() {
    return workerId != null && ufs.hasTable();
  }

  @Override
  public void run() {
    try {
      if (workerId == null) {
        register();
      } else {
        heartbeat();
      }
      if (outage) {
        LOG.info("the master answers again");
        outage = false;
      }
    } catch (StrataException e) {
      if (!outage) {
        LOG.warn("cannot reach the master: {}", e.oneLine());
        outage = true;
      }
    } catch (RuntimeException e) {
      LOG.error("master sync failed", e);
    }
  }

  private void register() {
    String id =
        master
            .call(
                "registerWorker",
                callBudget,
                stub ->
                    stub.registerWorker(
                        RegisterWorkerRequest.newBuilder()
                            .setAddress(address)
                            .setUsage(usage.get())
                            .build()))
            .getWorkerId();
    refreshView();
    refreshConf();
    workerId = id;
    LOG.info("registered with the master as {}", id);
  }

  private void heartbeat() {
    WorkerHeartbeatResponse reply =
        master.call(
            "workerHeartbeat",
            callBudget,
            stub ->
                stub.workerHeartbeat(
                    WorkerHeartbeatRequest.newBuilder()
                        .setWorkerId(workerId)
                        .setUsage(usage.get())
                        .setConfHash(appliedConfHash)
                        .setMountTableVersion(ufs.version())
                        .setPolicyVersion(policies.version())
                        .build()));
    if (reply.getCommand() == WorkerHeartbeatResponse.Command.REGISTER) {
      LOG.info("the master does not know this worker; registering again");
      register();
      return;
    }
    if (reply.getMountTableVersion() != ufs.version()
        || reply.getPolicyVersion() != policies.version()) {
      refreshView();
    }
    if (!reply.getConfHash().equals(appliedConfHash)) {
      refreshConf();
    }
  }

  private void refreshConf() {
    ConfigView view =
        master.call(
            "getConfig", callBudget, stub -> stub.getConfig(GetConfigRequest.getDefaultInstance()));
    ClusterConf.apply(conf, view.getOverridesMap(), view.getVersion());
    appliedConfHash = view.getHash();
    appliedConfVersion.set(view.getVersion());
    LOG.info("applied cluster configuration version {} ({})", view.getVersion(), view.getHash());
  }

  /** The mount table and the pins and TTLs, which resolve through it. */
  private void refreshView() {
    ClusterView view =
        master.call(
            "getClusterView",
            callBudget,
            stub -> stub.getClusterView(GetClusterViewRequest.getDefaultInstance()));
    ufs.update(MountTable.fromProto(view.getMountsList(), view.getMountTableVersion()));
    policies.update(view.getPoliciesList(), view.getPolicyVersion());
  }
}
