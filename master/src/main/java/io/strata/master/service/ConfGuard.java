package io.strata.master.service;

import io.strata.core.conf.ConfType;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.DirectMemoryFit;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterJournal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Refuses, before it is journaled, an update each of whose values is valid alone but that would
 * break the running cluster: a worker timeout within a few heartbeats (every worker would flap
 * between LIVE and LOST), a memory tier larger than a live worker's direct memory (it would fail
 * with OutOfMemoryError once full). Checked on the leader, against its own configuration and what
 * the live workers last reported.
 */
final class ConfGuard {
  /** Heartbeats a worker may miss before it is taken for lost. */
  static final int HEARTBEATS_PER_TIMEOUT = 3;

  private final MasterJournal journal;
  private final WorkerLiveness liveness;
  private final Configuration conf;

  ConfGuard(MasterJournal journal, WorkerLiveness liveness, Configuration conf) {
    this.journal = journal;
    this.liveness = liveness;
    this.conf = conf;
  }

  void check(Map<String, String> values) {
    List<String> problems = new ArrayList<>();
    String timeout = values.get(MasterKeys.WORKER_TIMEOUT.name());
    if (timeout != null) {
      Duration t = ConfType.DURATION.parse(timeout);
      Duration beat = conf.get(WorkerKeys.HEARTBEAT_INTERVAL);
      if (t.compareTo(beat.multipliedBy(HEARTBEATS_PER_TIMEOUT)) < 0) {
        problems.add(
            MasterKeys.WORKER_TIMEOUT.name()
                + "="
                + timeout
                + " is under "
                + HEARTBEATS_PER_TIMEOUT
                + " heartbeats ("
                + WorkerKeys.HEARTBEAT_INTERVAL.name()
                + " is "
                + beat.toMillis()
                + "ms): every worker would be taken for lost");
      }
    }
    String mem = values.get(WorkerKeys.MEM_SIZE.name());
    if (mem != null) {
      checkMemoryTier(ConfType.BYTES.parse(mem), problems);
    }
    if (!problems.isEmpty()) {
      throw StrataException.invalidArgument("nothing changed: " + String.join("; ", problems));
    }
  }

  /**
   * A live worker that has not reported its limit yet (it has just joined, or this leader was just
   * elected and has heard no heartbeat) holds the update back: accepting it unchecked is how a tier
   * larger than a worker's direct memory would get in.
   */
  private void checkMemoryTier(long bytes, List<String> problems) {
    List<String> unheard = new ArrayList<>();
    for (WorkerInfo w : liveWorkers()) {
      long limit =
          liveness.last(w.getId()).map(b -> b.usage().getMaxDirectMemoryBytes()).orElse(0L);
      if (limit <= 0) {
        unheard.add(w.getId());
      } else if (!DirectMemoryFit.fits(bytes, limit)) {
        problems.add("worker " + w.getId() + ": " + DirectMemoryFit.why(bytes, limit));
      }
    }
    if (problems.isEmpty() && !unheard.isEmpty()) {
      throw StrataException.unavailable(
          "nothing changed: "
              + WorkerKeys.MEM_SIZE.name()
              + " cannot be checked against the direct memory of "
              + String.join(", ", unheard)
              + " until it reports it (within a heartbeat): try again",
          null);
    }
  }

  private List<WorkerInfo> liveWorkers() {
    return journal
        .stateMachine()
        .read(
            s ->
                s.membership().all().stream()
                    .filter(w -> w.getState() == WorkerState.LIVE)
                    .toList());
  }
}
