package io.strata.master.state;

import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.status.StatusCode;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The workers of the cluster and the state of each (LIVE, LOST, DECOMMISSIONED). A worker's id is
 * "host:rpcPort", so a worker restarted at the same address keeps its place on the ring. The
 * version grows with every change, so clients can tell their view is stale.
 *
 * <p>Not thread-safe: only the state machine touches it, under its lock.
 */
public final class Membership {
  private final TreeMap<String, WorkerInfo> workers = new TreeMap<>();
  private long version;

  public static String idOf(WorkerAddress address) {
    return address.getHost() + ":" + address.getRpcPort();
  }

  /** Adds the worker, or updates its ports; a registering worker is LIVE unless decommissioned. */
  public ApplyResult register(WorkerAddress address, long timeMs) {
    String id = idOf(address);
    WorkerInfo old = workers.get(id);
    WorkerInfo.Builder next =
        old == null ? WorkerInfo.newBuilder().setId(id).setRegisteredAtMs(timeMs) : old.toBuilder();
    next.setAddress(address);
    if (old == null || old.getState() == WorkerState.LOST) {
      next.setState(WorkerState.LIVE).setStateChangedAtMs(timeMs);
    }
    WorkerInfo info = next.build();
    if (!info.equals(old)) {
      workers.put(id, info);
      version++;
    }
    return ApplyResult.OK;
  }

  public ApplyResult markLost(String id, long timeMs) {
    return transition(id, WorkerState.LIVE, WorkerState.LOST, timeMs);
  }

  public ApplyResult markBack(String id, long timeMs) {
    return transition(id, WorkerState.LOST, WorkerState.LIVE, timeMs);
  }

  public ApplyResult decommission(String id, long timeMs) {
    WorkerInfo old = workers.get(id);
    if (old == null) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, "no worker " + id + " is registered");
    }
    if (old.getState() == WorkerState.DECOMMISSIONED) {
      return ApplyResult.OK;
    }
    return set(old, WorkerState.DECOMMISSIONED, timeMs);
  }

  /**
   * Forgets a worker for good: never a LIVE one (a silent one is LOST first, a running one is
   * decommissioned and stopped first), so that the membership, and the view every client reads,
   * holds only the workers there are.
   */
  public ApplyResult remove(String id) {
    WorkerInfo old = workers.get(id);
    if (old == null) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, "no worker " + id + " is registered");
    }
    if (old.getState() == WorkerState.LIVE) {
      return ApplyResult.refused(
          StatusCode.FAILED_PRECONDITION,
          "worker "
              + id
              + " is LIVE: decommission it and stop its process first"
              + " (fsadmin decommissionWorker)");
    }
    workers.remove(id);
    version++;
    return ApplyResult.OK;
  }

  /**
   * Brings a decommissioned worker back into the ring (it is LIVE again; LOST if it went silent).
   */
  public ApplyResult recommission(String id, long timeMs) {
    WorkerInfo old = workers.get(id);
    if (old == null) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, "no worker " + id + " is registered");
    }
    if (old.getState() != WorkerState.DECOMMISSIONED) {
      return ApplyResult.refused(
          StatusCode.FAILED_PRECONDITION,
          "worker " + id + " is " + old.getState() + ", not decommissioned");
    }
    return set(old, WorkerState.LIVE, timeMs);
  }

  private ApplyResult transition(String id, WorkerState from, WorkerState to, long timeMs) {
    WorkerInfo old = workers.get(id);
    if (old == null) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, "no worker " + id + " is registered");
    }
    // A transition that already happened (or no longer applies) is not an error: the
    // leader may propose it twice around a failover.
    return old.getState() == from ? set(old, to, timeMs) : ApplyResult.OK;
  }

  private ApplyResult set(WorkerInfo old, WorkerState state, long timeMs) {
    workers.put(old.getId(), old.toBuilder().setState(state).setStateChangedAtMs(timeMs).build());
    version++;
    return ApplyResult.OK;
  }

  public Optional<WorkerInfo> get(String id) {
    return Optional.ofNullable(workers.get(id));
  }

  public Collection<WorkerInfo> all() {
    return workers.values();
  }

  public long version() {
    return version;
  }

  void restore(List<WorkerInfo> infos, long restoredVersion) {
    workers.clear();
    infos.forEach(w -> workers.put(w.getId(), w));
    version = restoredVersion;
  }
}
