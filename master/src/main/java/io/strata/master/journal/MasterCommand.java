package io.strata.master.journal;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFailure;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.ufs.Mount;
import java.util.List;
import java.util.Map;

/**
 * Every change to the master's replicated state, one record per kind of log entry. Each carries all
 * the values its application needs (times included), so that every master applies it to the same
 * result.
 *
 * <p>Java 17 has no pattern-matching switch, so exhaustiveness comes from {@link Handler}: a new
 * command adds a method there, and every handler stops compiling until it handles it.
 */
public sealed interface MasterCommand {
  <R> R accept(Handler<R> handler);

  /** One method per command. */
  interface Handler<R> {
    R registerWorker(RegisterWorker c);

    R workerLost(WorkerLost c);

    R workerBack(WorkerBack c);

    R decommissionWorker(DecommissionWorker c);

    R recommissionWorker(RecommissionWorker c);

    R removeWorker(RemoveWorker c);

    R setConf(SetConf c);

    R unsetConf(UnsetConf c);

    R addMount(AddMount c);

    R removeMount(RemoveMount c);

    R submitLoad(SubmitLoad c);

    R loadProgress(LoadProgress c);

    R finishLoad(FinishLoad c);

    R setPathPolicy(SetPathPolicy c);
  }

  /**
   * Pins or unpins a path, or sets or removes its TTL (0); null leaves that part as it is. {@code
   * owner}: the user asking (empty: an admin or the cluster).
   */
  record SetPathPolicy(String path, Boolean pinned, Long ttlMs, String owner)
      implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.setPathPolicy(this);
    }
  }

  /** A new distributedLoad job, as the leader built it (id included). */
  record SubmitLoad(LoadJob job) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.submitLoad(this);
    }
  }

  /** A checkpoint of a running job. */
  record LoadProgress(long id, LoadCounters counters, String cursor, List<LoadFailure> failures)
      implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.loadProgress(this);
    }
  }

  /**
   * The end of a job; {@code LOAD_STOPPED} is an operator's StopLoad. {@code counters}, when not
   * null, replace the last checkpoint's (what a stopped job had done when it stopped, or a finished
   * job's final figures); {@code failures} are added to the job's.
   */
  record FinishLoad(
      long id,
      LoadState state,
      String message,
      long timeMs,
      LoadCounters counters,
      List<LoadFailure> failures)
      implements MasterCommand {
    public FinishLoad(
        long id, LoadState state, String message, long timeMs, LoadCounters counters) {
      this(id, state, message, timeMs, counters, List.of());
    }

    @Override
    public <R> R accept(Handler<R> h) {
      return h.finishLoad(this);
    }
  }

  record RegisterWorker(WorkerAddress address, long timeMs) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.registerWorker(this);
    }
  }

  record WorkerLost(String workerId, long timeMs) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.workerLost(this);
    }
  }

  record WorkerBack(String workerId, long timeMs) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.workerBack(this);
    }
  }

  record DecommissionWorker(String workerId, long timeMs) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.decommissionWorker(this);
    }
  }

  record RecommissionWorker(String workerId, long timeMs) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.recommissionWorker(this);
    }
  }

  /** Forgets a worker that is not LIVE (checked on the leader: gone, not just decommissioned). */
  record RemoveWorker(String workerId) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.removeWorker(this);
    }
  }

  /** Sets cluster configuration overrides, all together; checked on the leader beforehand. */
  record SetConf(Map<String, String> values) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.setConf(this);
    }
  }

  record UnsetConf(List<String> keys) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.unsetConf(this);
    }
  }

  /** Attaches {@code mount}; with {@code replace} it may replace the mount at the same path. */
  record AddMount(Mount mount, boolean replace) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.addMount(this);
    }
  }

  record RemoveMount(String path) implements MasterCommand {
    @Override
    public <R> R accept(Handler<R> h) {
      return h.removeMount(this);
    }
  }
}
