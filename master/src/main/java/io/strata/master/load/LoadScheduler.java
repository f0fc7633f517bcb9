package io.strata.master.load;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadJob;
import io.strata.core.util.DaemonThreads;
import io.strata.master.journal.MasterJournal;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;

/**
 * Runs the load jobs of the state machine while this master leads: one {@link LoadRunner} per
 * running job, started on becoming leader (resuming from each job's checkpoint) and on submission,
 * cancelled when leadership is lost. Thread-safe.
 */
public final class LoadScheduler implements AutoCloseable {
  private final MasterJournal journal;
  private final WorkerStubs stubs;
  private final Rings rings;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final ThreadFactory threads = DaemonThreads.factory("load-job");
  private final Map<Long, LoadRunner> runners = new HashMap<>();

  /**
   * @param clock the wall clock, for the times recorded in the journal
   * @param nanoTime the monotonic clock, for retries and checkpoints
   */
  public LoadScheduler(
      MasterJournal journal,
      WorkerStubs stubs,
      int virtualNodes,
      Clock clock,
      LongSupplier nanoTime) {
    this.journal = journal;
    this.stubs = stubs;
    this.rings = new Rings(journal, virtualNodes);
    this.clock = clock;
    this.nanoTime = nanoTime;
  }

  /** Called while this master leads: every running job has a runner. */
  public synchronized void lead() {
    runners.values().removeIf(LoadRunner::done);
    for (LoadJob job : journal.stateMachine().read(s -> s.loads().runningJobs())) {
      if (!runners.containsKey(job.getId())) {
        LoadRunner r = new LoadRunner(job, journal, stubs, rings, clock, nanoTime);
        runners.put(job.getId(), r);
        threads.newThread(r).start();
      }
    }
  }

  /** Called when this master does not lead: its runners stop, the jobs stay as they are. */
  public synchronized void follow() {
    runners.values().forEach(LoadRunner::cancel);
    runners.clear();
  }

  /** Files handed out by every running job and not finished yet. */
  public synchronized int openFiles() {
    return runners.values().stream().mapToInt(LoadRunner::openFiles).sum();
  }

  /** A running job's figures including files done beyond its last checkpoint. */
  public synchronized Optional<LoadCounters> live(long id) {
    LoadRunner r = runners.get(id);
    return r == null || r.done() ? Optional.empty() : Optional.of(r.live());
  }

  @Override
  public void close() {
    follow();
  }
}
