package io.strata.master.load;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running load job's record in the master journal: whether it still runs, its checkpoints and its
 * end. A checkpoint that cannot get through for a moment (no quorum) is carried by the next one;
 * the job goes on. Used by the job's runner thread; {@link Progress} is shared with readers of the
 * live figures, under its own lock.
 */
final class JobRecord {
  private static final Logger LOG = LoggerFactory.getLogger(JobRecord.class);
  private static final int FINAL_CHECKPOINT_ATTEMPTS = 4;

  private final LoadJob job;
  private final MasterJournal journal;
  private final Clock clock;
  private String checkpointedCursor;

  JobRecord(LoadJob job, MasterJournal journal, Clock clock) {
    this.job = job;
    this.journal = journal;
    this.clock = clock;
    this.checkpointedCursor = job.getCursor();
  }

  boolean stillRunning() {
    return journal
        .stateMachine()
        .read(s -> s.loads().get(job.getId()))
        .map(j -> j.getState() == LoadState.LOAD_RUNNING)
        .orElse(false);
  }

  /** Records the final figures (with what repair walks loaded) and returns them. */
  LoadCounters finalCheckpoint(Progress progress, long repairLoaded) {
    LoadCounters c = progress.committed();
    c = c.toBuilder().setBytesLoaded(c.getBytesLoaded() + repairLoaded).build();
    MasterCommand.LoadProgress p =
        new MasterCommand.LoadProgress(
            job.getId(), c, progress.cursor(), progress.takeNewFailures());
    for (int attempt = 1; ; attempt++) {
      try {
        journal.submit(p).orThrow();
        return p.counters();
      } catch (StrataException e) {
        if (attempt == FINAL_CHECKPOINT_ATTEMPTS || e.code() != StatusCode.UNAVAILABLE) {
          throw e;
        }
        LOG.warn(
            "load job {}: cannot record its final figures yet ({}); trying again",
            job.getId(),
            e.oneLine());
        try {
          Thread.sleep(TimeUnit.SECONDS.toMillis(attempt));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Records progress, if the cursor moved since the last checkpoint. */
  void checkpoint(Progress progress) {
    if (progress.cursor().equals(checkpointedCursor)) {
      return;
    }
    checkpointedCursor = progress.cursor();
    MasterCommand.LoadProgress p =
        new MasterCommand.LoadProgress(
            job.getId(), progress.committed(), progress.cursor(), progress.takeNewFailures());
    try {
      // A refusal means the job is no longer running: the loop sees that next and stops.
      journal.submit(p);
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_LEADER || e.code() == StatusCode.CANCELLED) {
        throw e;
      }
      // No quorum for a moment: the job goes on, and the next checkpoint carries these figures.
      LOG.warn("load job {}: cannot checkpoint now ({}); will try again", job.getId(), e.oneLine());
      progress.restoreFailures(p.failures());
      checkpointedCursor = null;
    }
  }

  /** Records the job's end; if that cannot be done, the next leader resumes the job. */
  void finish(LoadState state, String message) {
    try {
      journal.submit(
          new MasterCommand.FinishLoad(job.getId(), state, message, clock.millis(), null));
      LOG.info("load job {} of {}: {}", job.getId(), job.getPath(), message);
    } catch (StrataException e) {
      LOG.warn(
          "load job {}: cannot record its end ({}); the next leader resumes it",
          job.getId(),
          e.oneLine());
    }
  }
}
