package io.strata.master.journal;

import io.strata.master.journal.MasterCommand.AddMount;
import io.strata.master.journal.MasterCommand.DecommissionWorker;
import io.strata.master.journal.MasterCommand.RecommissionWorker;
import io.strata.master.journal.MasterCommand.RegisterWorker;
import io.strata.master.journal.MasterCommand.RemoveMount;
import io.strata.master.journal.MasterCommand.SetConf;
import io.strata.master.journal.MasterCommand.UnsetConf;
import io.strata.master.journal.MasterCommand.WorkerBack;
import io.strata.master.journal.MasterCommand.WorkerLost;
import io.strata.master.state.ApplyResult;
import io.strata.master.state.ClusterState;

/** The state machine's one switch: each command calls one method of the state that owns it. */
final class Applier implements MasterCommand.Handler<ApplyResult> {
  private final ClusterState state;

  Applier(ClusterState state) {
    this.state = state;
  }

  @Override
  public ApplyResult registerWorker(RegisterWorker c) {
    return state.membership().register(c.address(), c.timeMs());
  }

  @Override
  public ApplyResult workerLost(WorkerLost c) {
    return state.membership().markLost(c.workerId(), c.timeMs());
  }

  @Override
  public ApplyResult workerBack(WorkerBack c) {
    return state.membership().markBack(c.workerId(), c.timeMs());
  }

  @Override
  public ApplyResult decommissionWorker(DecommissionWorker c) {
    return state.membership().decommission(c.workerId(), c.timeMs());
  }

  @Override
  public ApplyResult recommissionWorker(RecommissionWorker c) {
    return state.membership().recommission(c.workerId(), c.timeMs());
  }

  @Override
  public ApplyResult removeWorker(MasterCommand.RemoveWorker c) {
    return state.membership().remove(c.workerId());
  }

  @Override
  public ApplyResult setConf(SetConf c) {
    return state.conf().set(c.values());
  }

  @Override
  public ApplyResult unsetConf(UnsetConf c) {
    return state.conf().unset(c.keys());
  }

  @Override
  public ApplyResult addMount(AddMount c) {
    return state.mounts().add(c.mount(), c.replace());
  }

  @Override
  public ApplyResult removeMount(RemoveMount c) {
    return state.mounts().remove(c.path());
  }

  @Override
  public ApplyResult submitLoad(MasterCommand.SubmitLoad c) {
    return state.loads().submit(c.job());
  }

  @Override
  public ApplyResult loadProgress(MasterCommand.LoadProgress c) {
    return state.loads().progress(c.id(), c.counters(), c.cursor(), c.failures());
  }

  @Override
  public ApplyResult finishLoad(MasterCommand.FinishLoad c) {
    return state
        .loads()
        .finish(c.id(), c.state(), c.message(), c.timeMs(), c.counters(), c.failures());
  }

  @Override
  public ApplyResult setPathPolicy(MasterCommand.SetPathPolicy c) {
    return state.policies().set(c.path(), c.pinned(), c.ttlMs(), c.owner());
  }
}
