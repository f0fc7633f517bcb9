package io.strata.master.load;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFailure;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import java.time.Clock;
import java.util.List;
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
  private static final int FINAL_ATTEMPTS = 4;

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

  /**
   * The job's final figures (with what repair walks loaded), to be recorded with its end by {@link
   * #finish(LoadState, String, Final)}.
   */
  Final finalFigures(Progress progress, long repairLoaded) {
    LoadCounters c = progress.committed();
    return new Final(
        c.toBuilder().setBytesLoaded(c.getBytesLoaded() + repairLoaded).build(),
        progress.takeNewFailures());
  }

  /** What a finished job had done, and the failures no checkpoint recorded yet. */
  record Final(LoadCounters counters, List<LoadFailure> failures) {}

  /**
   * Records the job's end with its final figures in one commit, waiting out a few moments without
   * quorum; if it cannot be recorded, the next leader resumes the job.
   */
  void finish(LoadState state, String message, Final figures) {
    record(
        new MasterCommand.FinishLoad(
            job.getId(), state, message, clock.millis(), figures.counters(), figures.failures()),
        FINAL_ATTEMPTS);
  }

  /** Records the end of a job that failed as a whole; its figures stay its last checkpoint's. */
  void fail(String message) {
    record(
        new MasterCommand.FinishLoad(
            job.getId(), LoadState.LOAD_FAILED, message, clock.millis(), null),
        1);
  }

  /** Submits the job's end, trying again on UNAVAILABLE (no quorum) up to {@code attempts}. */
  private void record(MasterCommand.FinishLoad end, int attempts) {
    for (int attempt = 1; ; attempt++) {
      try {
        journal.submit(end).orThrow();
        LOG.info("load job {} of {}: {}", job.getId(), job.getPath(), end.message());
        return;
      } catch (StrataException e) {
        if (attempt >= attempts || e.code() != StatusCode.UNAVAILABLE) {
          cannotRecordEnd(e);
          return;
        }
        LOG.warn(
            "load job {}: cannot record its end yet ({}); trying again", job.getId(), e.oneLine());
        try {
          Thread.sleep(TimeUnit.SECONDS.toMillis(attempt));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void cannotRecordEnd(StrataException e) {
    if (e.code() == StatusCode.FAILED_PRECONDITION) {
      // An operator stopped it meanwhile: its end is recorded already.
      LOG.info(
          "load job {} ended before its last figures were recorded: {}", job.getId(), e.oneLine());
      return;
    }
    LOG.warn(
        "load job {}: cannot record its end ({}); the next leader resumes it",
        job.getId(),
        e.oneLine());
  }
}
