package io.strata.master.service;

import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.master.journal.MasterJournal;
import java.time.Duration;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * After a change every worker applies (the mount table, pins and TTLs): waits until each live
 * worker's heartbeat reports it, so that the next request finds it there, or until {@link #LIMIT}
 * passes; the workers still behind are counted for the answer.
 */
final class Propagation {
  /** How long a change waits for live workers to apply it before answering. */
  private static final Duration LIMIT = Duration.ofSeconds(10);

  private final MasterJournal journal;
  private final WorkerLiveness liveness;

  Propagation(MasterJournal journal, WorkerLiveness liveness) {
    this.journal = journal;
    this.liveness = liveness;
  }

  /** Live workers that have not reported {@code version} of what {@code applied} reads. */
  int awaitWorkers(ToLongFunction<WorkerLiveness.Beat> applied, long version) {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    int behind = liveness.behind(liveWorkers(), applied, version);
    while (behind > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      behind = liveness.behind(liveWorkers(), applied, version);
    }
    return behind;
  }

  private List<String> liveWorkers() {
    return journal.readView().getWorkersList().stream()
        .filter(w -> w.getState() == WorkerState.LIVE)
        .map(WorkerInfo::getId)
        .toList();
  }
}
