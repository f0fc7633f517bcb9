package io.strata.master.service;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicies;
import io.strata.core.proto.SetPathPolicyRequest;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import io.strata.master.load.PathAccess;

/**
 * The leader's side of pins and TTLs: a change is journaled, and answered once the live workers
 * have applied it (so that a pin holds for what is read next), or with those still behind counted.
 */
final class PolicyControl {
  private final MasterJournal journal;
  private final Propagation propagation;
  private final PathAccess access;

  PolicyControl(MasterJournal journal, Propagation propagation, PathAccess access) {
    this.journal = journal;
    this.propagation = propagation;
    this.access = access;
  }

  PathPolicies set(SetPathPolicyRequest req) {
    String path = StrataPath.of(req.getPath()).toString();
    // A pin holds others' pages in the cache and a TTL frees them: a user sets either only where
    // they may write.
    String operation =
        req.hasPinned()
            ? (req.getPinned() ? "pin" : "unpin")
            : (req.getTtlMs() == 0 ? "unset the TTL of" : "set a TTL on");
    boolean removesOnly =
        (!req.hasPinned() || !req.getPinned()) && (!req.hasTtlMs() || req.getTtlMs() == 0);
    try {
      access.require(path, PathAccess.WRITE, operation);
    } catch (StrataException e) {
      // What was set on a path since deleted can still be taken away (it protects nothing now).
      if (!(removesOnly && e.code() == StatusCode.NOT_FOUND)) {
        throw e;
      }
    }
    Principal caller = Principal.current();
    // A user's policies count against their share; an admin's and the cluster's against none.
    String owner = caller != null && caller.role() == Role.USER ? caller.user() : "";
    journal
        .submit(
            new MasterCommand.SetPathPolicy(
                path,
                req.hasPinned() ? req.getPinned() : null,
                req.hasTtlMs() ? req.getTtlMs() : null,
                owner))
        .orThrow();
    PathPolicies now =
        journal
            .stateMachine()
            .read(
                s ->
                    PathPolicies.newBuilder()
                        .addAllPolicies(s.policies().all())
                        .setVersion(s.policies().version())
                        .build());
    int behind = propagation.awaitWorkers(WorkerLiveness.Beat::policyVersion, now.getVersion());
    return now.toBuilder().setWorkersBehind(behind).build();
  }
}
