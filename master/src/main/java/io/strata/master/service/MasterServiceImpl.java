package io.strata.master.service;

import io.grpc.stub.StreamObserver;
import io.strata.core.conf.ClusterConf;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.process.Version;
import io.strata.core.proto.AddMasterRequest;
import io.strata.core.proto.AddMasterResponse;
import io.strata.core.proto.ClusterReport;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.CreateTokenRequest;
import io.strata.core.proto.CreateTokenResponse;
import io.strata.core.proto.DecommissionWorkerRequest;
import io.strata.core.proto.DecommissionWorkerResponse;
import io.strata.core.proto.ElectLeaderRequest;
import io.strata.core.proto.ElectLeaderResponse;
import io.strata.core.proto.GetClusterReportRequest;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.GetMasterStatusRequest;
import io.strata.core.proto.GetQuorumInfoRequest;
import io.strata.core.proto.ListLoadsRequest;
import io.strata.core.proto.ListLoadsResponse;
import io.strata.core.proto.ListMountsRequest;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.MasterStatus;
import io.strata.core.proto.MountRequest;
import io.strata.core.proto.MountTableView;
import io.strata.core.proto.PathPolicies;
import io.strata.core.proto.QuorumInfo;
import io.strata.core.proto.RecommissionWorkerRequest;
import io.strata.core.proto.RecommissionWorkerResponse;
import io.strata.core.proto.RegisterWorkerRequest;
import io.strata.core.proto.RegisterWorkerResponse;
import io.strata.core.proto.RemoveMasterRequest;
import io.strata.core.proto.RemoveMasterResponse;
import io.strata.core.proto.RemoveWorkerRequest;
import io.strata.core.proto.RemoveWorkerResponse;
import io.strata.core.proto.SetPathPolicyRequest;
import io.strata.core.proto.StopLoadRequest;
import io.strata.core.proto.SubmitLoadRequest;
import io.strata.core.proto.UnmountRequest;
import io.strata.core.proto.UnsetConfRequest;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.proto.WorkerHeartbeatRequest;
import io.strata.core.proto.WorkerHeartbeatResponse;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.rpc.Rpc;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import io.strata.master.load.LoadControl;
import io.strata.master.load.PathAccess;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The master's gRPC service. Every call is answered by the leader; followers refuse with NOT_LEADER
 * naming it. Heartbeats only touch leader-local memory unless they change a worker's state.
 */
public final class MasterServiceImpl extends MasterServiceGrpc.MasterServiceImplBase {
  private final MasterJournal journal;
  private final MountControl mounts;
  private final PolicyControl policies;

  private final MembershipControl membership;
  private final LoadControl loads;
  private final Quorum quorum;
  private final ConfGuard confGuard;
  private final TokenIssuer tokens;

  public MasterServiceImpl(
      MasterJournal journal,
      WorkerLiveness liveness,
      Quorum quorum,
      LoadControl loads,
      PathAccess pathAccess,
      Clock clock,
      Configuration conf,
      Security security) {
    this.tokens = new TokenIssuer(security, clock);
    this.confGuard = new ConfGuard(journal, liveness, conf);
    this.loads = loads;
    this.journal = journal;
    this.quorum = quorum;
    this.membership = new MembershipControl(journal, liveness, clock, conf, security);
    Propagation propagation = new Propagation(journal, liveness);
    this.mounts = new MountControl(journal, propagation, conf.get(MasterKeys.MOUNT_LOCAL_ROOTS));
    this.policies = new PolicyControl(journal, propagation, pathAccess);
  }

  @Override
  public void createToken(CreateTokenRequest req, StreamObserver<CreateTokenResponse> out) {
    Rpc.unary(out, "createToken", () -> tokens.create(req));
  }

  @Override
  public void registerWorker(
      RegisterWorkerRequest req, StreamObserver<RegisterWorkerResponse> out) {
    Rpc.unary(
        out,
        "registerWorker",
        () -> {
          journal.requireLeader();
          String id = membership.register(req, Principal.REMOTE.get());
          return RegisterWorkerResponse.newBuilder().setWorkerId(id).build();
        });
  }

  @Override
  public void workerHeartbeat(
      WorkerHeartbeatRequest req, StreamObserver<WorkerHeartbeatResponse> out) {
    Rpc.unary(
        out,
        "workerHeartbeat",
        () -> {
          journal.requireLeader();
          return membership.heartbeat(req);
        });
  }

  @Override
  public void getClusterView(GetClusterViewRequest req, StreamObserver<ClusterView> out) {
    Rpc.unary(
        out,
        "getClusterView",
        () -> {
          journal.requireLeader();
          ClusterView view = journal.readView();
          Principal caller = Principal.current();
          if (caller == null || caller.role() == Role.SERVICE) {
            return view;
          }
          // A client needs the table to route, not the store's credentials: only the cluster's
          // processes get them, to open the stores; an admin's token does not (issues 54, 78).
          return view.toBuilder()
              .clearMounts()
              .addAllMounts(MountControl.redacted(view.getMountsList()))
              .build();
        });
  }

  @Override
  public void getClusterReport(GetClusterReportRequest req, StreamObserver<ClusterReport> out) {
    Rpc.unary(
        out,
        "getClusterReport",
        () -> {
          journal.requireLeader();
          ClusterView view = journal.readView();
          MasterStatus self = quorum.localStatus();
          ClusterReport.Builder report =
              ClusterReport.newBuilder()
                  .setVersion(Version.VERSION)
                  .setLeaderStartedAtMs(self.getStartedAtMs())
                  .setLeaderRpcAddress(self.getRpcAddress())
                  .addAllMounts(MountControl.redacted(view.getMountsList()))
                  .addAllMasters(quorum.info().getMembersList())
                  .setConfHash(view.getConfHash())
                  .setConfVersion(journal.stateMachine().read(st -> st.conf().version()));
          for (WorkerInfo w : view.getWorkersList()) {
            report.addWorkers(membership.report(w));
          }
          return report.build();
        });
  }

  @Override
  public void decommissionWorker(
      DecommissionWorkerRequest req, StreamObserver<DecommissionWorkerResponse> out) {
    Rpc.unary(
        out,
        "decommissionWorker",
        () -> {
          journal.requireLeader();
          membership.decommission(req.getWorkerId());
          return DecommissionWorkerResponse.getDefaultInstance();
        });
  }

  @Override
  public void removeWorker(RemoveWorkerRequest req, StreamObserver<RemoveWorkerResponse> out) {
    Rpc.unary(
        out,
        "removeWorker",
        () -> {
          journal.requireLeader();
          membership.remove(req.getWorkerId());
          return RemoveWorkerResponse.getDefaultInstance();
        });
  }

  @Override
  public void recommissionWorker(
      RecommissionWorkerRequest req, StreamObserver<RecommissionWorkerResponse> out) {
    Rpc.unary(
        out,
        "recommissionWorker",
        () -> {
          journal.requireLeader();
          membership.recommission(req.getWorkerId());
          return RecommissionWorkerResponse.getDefaultInstance();
        });
  }

  @Override
  public void getConfig(GetConfigRequest req, StreamObserver<ConfigView> out) {
    Rpc.unary(
        out,
        "getConfig",
        () -> {
          journal.requireLeader();
          return journal.stateMachine().read(s -> s.conf().view());
        });
  }

  @Override
  public void updateConf(UpdateConfRequest req, StreamObserver<ConfigView> out) {
    Rpc.unary(
        out,
        "updateConf",
        () -> {
          journal.requireLeader();
          ClusterConf.validateUpdate(req.getValuesMap());
          confGuard.check(req.getValuesMap());
          journal.submit(new MasterCommand.SetConf(Map.copyOf(req.getValuesMap()))).orThrow();
          return journal.stateMachine().read(s -> s.conf().view());
        });
  }

  @Override
  public void unsetConf(UnsetConfRequest req, StreamObserver<ConfigView> out) {
    Rpc.unary(
        out,
        "unsetConf",
        () -> {
          journal.requireLeader();
          ClusterConf.validateUnset(req.getKeysList());
          journal.submit(new MasterCommand.UnsetConf(List.copyOf(req.getKeysList()))).orThrow();
          return journal.stateMachine().read(s -> s.conf().view());
        });
  }

  @Override
  public void mount(MountRequest req, StreamObserver<MountTableView> out) {
    Rpc.unary(
        out,
        "mount",
        () -> {
          journal.requireLeader();
          return mounts.mount(req.getMount());
        });
  }

  @Override
  public void unmount(UnmountRequest req, StreamObserver<MountTableView> out) {
    Rpc.unary(
        out,
        "unmount",
        () -> {
          journal.requireLeader();
          return mounts.unmount(req.getPath());
        });
  }

  @Override
  public void listMounts(ListMountsRequest req, StreamObserver<MountTableView> out) {
    Rpc.unary(
        out,
        "listMounts",
        () -> {
          journal.requireLeader();
          return mounts.view();
        });
  }

  @Override
  public void setPathPolicy(SetPathPolicyRequest req, StreamObserver<PathPolicies> out) {
    Rpc.unary(
        out,
        "setPathPolicy",
        () -> {
          journal.requireLeader();
          return policies.set(req);
        });
  }

  @Override
  public void getMasterStatus(GetMasterStatusRequest req, StreamObserver<MasterStatus> out) {
    Rpc.unary(out, "getMasterStatus", quorum::localStatus);
  }

  @Override
  public void getQuorumInfo(GetQuorumInfoRequest req, StreamObserver<QuorumInfo> out) {
    Rpc.unary(out, "getQuorumInfo", quorum::info);
  }

  @Override
  public void electLeader(ElectLeaderRequest req, StreamObserver<ElectLeaderResponse> out) {
    Rpc.unary(
        out,
        "electLeader",
        () -> {
          quorum.elect(req.getAddress());
          return ElectLeaderResponse.getDefaultInstance();
        });
  }

  @Override
  public void addMaster(AddMasterRequest req, StreamObserver<AddMasterResponse> out) {
    Rpc.unary(
        out,
        "addMaster",
        () -> {
          quorum.add(req.getAddress());
          return AddMasterResponse.getDefaultInstance();
        });
  }

  @Override
  public void removeMaster(RemoveMasterRequest req, StreamObserver<RemoveMasterResponse> out) {
    Rpc.unary(
        out,
        "removeMaster",
        () -> {
          quorum.remove(req.getAddress());
          return RemoveMasterResponse.getDefaultInstance();
        });
  }

  @Override
  public void submitLoad(SubmitLoadRequest req, StreamObserver<LoadJob> out) {
    Rpc.unary(
        out,
        "submitLoad",
        () -> {
          journal.requireLeader();
          return loads.submit(req);
        });
  }

  @Override
  public void getLoad(GetLoadRequest req, StreamObserver<LoadJob> out) {
    Rpc.unary(
        out,
        "getLoad",
        () -> {
          journal.requireLeader();
          return loads.get(req);
        });
  }

  @Override
  public void stopLoad(StopLoadRequest req, StreamObserver<LoadJob> out) {
    Rpc.unary(
        out,
        "stopLoad",
        () -> {
          journal.requireLeader();
          return loads.stop(req);
        });
  }

  @Override
  public void listLoads(ListLoadsRequest req, StreamObserver<ListLoadsResponse> out) {
    Rpc.unary(
        out,
        "listLoads",
        () -> {
          journal.requireLeader();
          return loads.list();
        });
  }
}
