package io.strata.master.service;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.Mount;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import io.strata.master.load.LoadScheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What only the leader does, checked on every tick: when it becomes leader, give every worker a
 * grace period and make the root mount match configuration; then mark workers that fell silent
 * LOST, and keep a runner on every running load job (resuming those a previous leader ran). Runs on
 * one scheduler thread, so ticks never overlap.
 */
public final class LeaderDuties implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderDuties.class);

  private final MasterJournal journal;
  private final WorkerLiveness liveness;
  private final Mount rootMount;
  private final Supplier<Duration> workerTimeout;
  private final LoadScheduler loads;
  private final Clock clock;
  private boolean leading;
  private boolean rootSettled;

  public LeaderDuties(
      MasterJournal journal,
      WorkerLiveness liveness,
      Mount rootMount,
      Supplier<Duration> workerTimeout,
      LoadScheduler loads,
      Clock clock) {
    this.journal = journal;
    this.liveness = liveness;
    this.rootMount = rootMount;
    this.workerTimeout = workerTimeout;
    this.loads = loads;
    this.clock = clock;
  }

  @Override
  public void run() {
    try {
      tick();
    } catch (StrataException e) {
      LOG.warn("leader duties: {}", e.oneLine());
    } catch (RuntimeException e) {
      LOG.error("leader duties failed", e);
    }
  }

  private void tick() {
    if (!journal.isLeaderReady()) {
      leading = false;
      loads.follow();
      return;
    }
    if (!leading) {
      leading = true;
      rootSettled = false;
      liveness.startGracePeriod(
          journal
              .stateMachine()
              .read(s -> s.membership().all().stream().map(WorkerInfo::getId).toList()));
      LOG.info("this master leads the group");
    }
    if (!rootSettled) {
      settleRoot();
    }
    markSilentWorkersLost();
    loads.lead();
  }

  private void settleRoot() {
    Optional<Mount> current =
        journal
            .stateMachine()
            .read(
                s ->
                    s.mounts().all().stream()
                        .filter(m -> m.path().equals(StrataPath.ROOT))
                        .findFirst());
    if (current.isEmpty() || !current.get().equals(rootMount)) {
      journal.submit(new MasterCommand.AddMount(rootMount, true)).orThrow();
      LOG.info("root mounted from {}", rootMount.ufsUri());
    }
    rootSettled = true;
  }

  private void markSilentWorkersLost() {
    List<String> live =
        journal
            .stateMachine()
            .read(
                s ->
                    s.membership().all().stream()
                        .filter(w -> w.getState() == WorkerState.LIVE)
                        .map(WorkerInfo::getId)
                        .toList());
    Duration timeout = workerTimeout.get();
    for (String id : liveness.silent(live, timeout.toNanos())) {
      LOG.warn("worker {} silent for over {} ms: marking it LOST", id, timeout.toMillis());
      journal.submit(new MasterCommand.WorkerLost(id, clock.millis())).orThrow();
    }
  }
}
