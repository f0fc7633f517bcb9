package io.strata.core.rpc;

import io.grpc.MethodDescriptor;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.security.Role;
import java.util.HashMap;
import java.util.Map;

/**
 * The role each gRPC method needs in TOKEN mode. Changing the cluster (configuration, membership,
 * quorum, mounts, tokens) needs ADMIN; what only the cluster's own processes do (a worker joining
 * and reporting, a master handing a worker a load) needs SERVICE; everything else a USER.
 */
final class AccessPolicy {
  private static final Map<String, Role> NEEDED = new HashMap<>();

  static {
    need(Role.ADMIN, MasterServiceGrpc.getUpdateConfMethod());
    need(Role.ADMIN, MasterServiceGrpc.getUnsetConfMethod());
    need(Role.ADMIN, MasterServiceGrpc.getDecommissionWorkerMethod());
    need(Role.ADMIN, MasterServiceGrpc.getRecommissionWorkerMethod());
    need(Role.ADMIN, MasterServiceGrpc.getRemoveWorkerMethod());
    need(Role.ADMIN, MasterServiceGrpc.getElectLeaderMethod());
    need(Role.ADMIN, MasterServiceGrpc.getAddMasterMethod());
    need(Role.ADMIN, MasterServiceGrpc.getRemoveMasterMethod());
    need(Role.ADMIN, MasterServiceGrpc.getMountMethod());
    need(Role.ADMIN, MasterServiceGrpc.getUnmountMethod());
    need(Role.ADMIN, MasterServiceGrpc.getCreateTokenMethod());
    need(Role.SERVICE, MasterServiceGrpc.getRegisterWorkerMethod());
    need(Role.SERVICE, MasterServiceGrpc.getWorkerHeartbeatMethod());
    need(Role.SERVICE, WorkerServiceGrpc.getLoadFilesMethod());
  }

  private AccessPolicy() {}

  private static void need(Role role, MethodDescriptor<?, ?> method) {
    NEEDED.put(method.getFullMethodName(), role);
  }

  /** The role a call of {@code fullMethodName} needs. */
  static Role needed(String fullMethodName) {
    return NEEDED.getOrDefault(fullMethodName, Role.USER);
  }
}
