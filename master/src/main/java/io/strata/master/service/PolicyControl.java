package io.strata.master.service;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicies;
import io.strata.core.proto.SetPathPolicyRequest;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;

/**
 * The leader's side of pins and TTLs: a change is journaled, and answered once the live workers
 * have applied it (so that a pin holds for what is read next), or with those still behind counted.
 */
final class PolicyControl {
  private final MasterJournal journal;
  private final Propagation propagation;

  PolicyControl(MasterJournal journal, Propagation propagation) {
    this.journal = journal;
    this.propagation = propagation;
  }

  PathPolicies set(SetPathPolicyRequest req) {
    journal
        .submit(
            new MasterCommand.SetPathPolicy(
                StrataPath.of(req.getPath()).toString(),
                req.hasPinned() ? req.getPinned() : null,
                req.hasTtlMs() ? req.getTtlMs() : null))
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
