package io.strata.master.service;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.proto.RegisterWorkerRequest;
import io.strata.core.proto.WorkerHeartbeatRequest;
import io.strata.core.proto.WorkerHeartbeatResponse;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerReport;
import io.strata.core.proto.WorkerState;
import io.strata.core.security.Security;
import io.strata.core.security.SecurityMode;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import io.strata.master.state.Membership;
import java.net.SocketAddress;
import java.time.Clock;
import java.util.Optional;

/**
 * The leader's side of worker membership: who registers (checked against what its connection
 * proves), what a heartbeat changes, and the operator's decommission, recommission and removal.
 * Journals only what changes a worker's state: a steady heartbeat touches leader memory alone.
 */
final class MembershipControl {
  private final MasterJournal journal;
  private final WorkerLiveness liveness;
  private final Clock clock;
  private final Configuration conf;
  private final Security security;

  MembershipControl(
      MasterJournal journal,
      WorkerLiveness liveness,
      Clock clock,
      Configuration conf,
      Security security) {
    this.journal = journal;
    this.liveness = liveness;
    this.clock = clock;
    this.conf = conf;
    this.security = security;
  }

  /** Registers the worker at the request's address; its id. {@code remote}: the caller's peer. */
  String register(RegisterWorkerRequest req, SocketAddress remote) {
    WorkerAddressCheck.check(req.getAddress());
    if (security.mode() == SecurityMode.TOKEN) {
      WorkerIdentity.check(req.getAddress(), remote);
    }
    String id = Membership.idOf(req.getAddress());
    Optional<WorkerInfo> known = known(id);
    boolean unchanged =
        known.isPresent()
            && known.get().getState() == WorkerState.LIVE
            && known.get().getAddress().equals(req.getAddress());
    if (!unchanged) {
      journal.submit(new MasterCommand.RegisterWorker(req.getAddress(), clock.millis())).orThrow();
    }
    liveness.beat(id, req.getUsage(), "", -1, -1);
    return id;
  }

  /**
   * Records a heartbeat; the versions the worker should be at, or REGISTER for a worker this group
   * does not know (removed, or from before a restored snapshot).
   */
  WorkerHeartbeatResponse heartbeat(WorkerHeartbeatRequest req) {
    Optional<WorkerInfo> known = known(req.getWorkerId());
    WorkerHeartbeatResponse.Builder reply = WorkerHeartbeatResponse.newBuilder();
    if (known.isEmpty()) {
      return reply.setCommand(WorkerHeartbeatResponse.Command.REGISTER).build();
    }
    liveness.beat(
        req.getWorkerId(),
        req.getUsage(),
        req.getConfHash(),
        req.getMountTableVersion(),
        req.getPolicyVersion());
    if (known.get().getState() == WorkerState.LOST) {
      journal.submit(new MasterCommand.WorkerBack(req.getWorkerId(), clock.millis())).orThrow();
    }
    return journal
        .stateMachine()
        .read(
            s ->
                reply
                    .setMembershipVersion(s.membership().version())
                    .setMountTableVersion(s.mounts().version())
                    .setConfHash(s.conf().hash())
                    .setPolicyVersion(s.policies().version())
                    .build());
  }

  void decommission(String id) {
    journal.submit(new MasterCommand.DecommissionWorker(id, clock.millis())).orThrow();
  }

  void recommission(String id) {
    journal.submit(new MasterCommand.RecommissionWorker(id, clock.millis())).orThrow();
  }

  /**
   * Forgets a worker. Refused for a decommissioned one that still reports: it would register again
   * with its next heartbeat.
   */
  void remove(String id) {
    Optional<WorkerInfo> known = known(id);
    long silentMs = liveness.last(id).map(liveness::ageMillis).orElse(Long.MAX_VALUE);
    if (known.isPresent()
        && known.get().getState() == WorkerState.DECOMMISSIONED
        && silentMs < conf.get(MasterKeys.WORKER_TIMEOUT).toMillis()) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "worker " + id + " still reports: stop its process first, or it registers again");
    }
    journal.submit(new MasterCommand.RemoveWorker(id)).orThrow();
    liveness.forget(id);
  }

  /** A worker's line of the cluster report: its state and what its last heartbeat said. */
  WorkerReport report(WorkerInfo w) {
    WorkerReport.Builder wr = WorkerReport.newBuilder().setInfo(w).setLastHeartbeatAgeMs(-1);
    liveness
        .last(w.getId())
        .ifPresent(
            b ->
                wr.setUsage(b.usage())
                    .setLastHeartbeatAgeMs(liveness.ageMillis(b))
                    .setConfHash(b.confHash()));
    return wr.build();
  }

  private Optional<WorkerInfo> known(String id) {
    return journal.stateMachine().read(s -> s.membership().get(id));
  }
}
