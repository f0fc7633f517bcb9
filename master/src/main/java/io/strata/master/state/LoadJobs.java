package io.strata.master.state;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFailure;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.status.StatusCode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * distributedLoad jobs: the running ones, with their last checkpoint, and the latest finished ones.
 * Per job the state is small and bounded (counters, a cursor, the first failures); no per-file
 * state. Not thread-safe: only the state machine touches it.
 */
public final class LoadJobs {
  /** Failures kept per job; the counters count every one. */
  public static final int MAX_FAILURES = 100;

  /** Finished jobs kept for status and listing. */
  static final int MAX_FINISHED = 50;

  /**
   * Jobs running at once: each is a thread and a walk on the leader, and a new leader restarts
   * every one, so their number is bounded whoever submits them.
   */
  public static final int MAX_RUNNING = 32;

  private final TreeMap<Long, LoadJob> jobs = new TreeMap<>();

  public ApplyResult submit(LoadJob job) {
    if (jobs.containsKey(job.getId())) {
      return ApplyResult.refused(StatusCode.ALREADY_EXISTS, "load job " + job.getId() + " exists");
    }
    Optional<LoadJob> running = running(job.getPath());
    if (running.isPresent()) {
      return ApplyResult.refused(
          StatusCode.ALREADY_EXISTS,
          "job "
              + running.get().getId()
              + " is already loading "
              + job.getPath()
              + "; follow it with --progress or stop it with --stop");
    }
    if (runningJobs().size() >= MAX_RUNNING) {
      return ApplyResult.refused(StatusCode.RESOURCE_EXHAUSTED, tooMany());
    }
    jobs.put(job.getId(), job.toBuilder().setState(LoadState.LOAD_RUNNING).build());
    return ApplyResult.OK;
  }

  public ApplyResult progress(
      long id, LoadCounters counters, String cursor, List<LoadFailure> failures) {
    LoadJob job = jobs.get(id);
    if (job == null || job.getState() != LoadState.LOAD_RUNNING) {
      return ApplyResult.refused(
          StatusCode.FAILED_PRECONDITION, "load job " + id + " is not running");
    }
    LoadJob.Builder b = job.toBuilder().setCounters(counters).setCursor(cursor);
    addFailures(b, failures);
    jobs.put(id, b.build());
    return ApplyResult.OK;
  }

  private static void addFailures(LoadJob.Builder b, List<LoadFailure> failures) {
    for (LoadFailure f : failures) {
      // A checkpoint retried after a timeout may repeat failures already recorded.
      boolean known = b.getFailuresList().stream().anyMatch(k -> k.getPath().equals(f.getPath()));
      if (!known && b.getFailuresCount() < MAX_FAILURES) {
        b.addFailures(f);
      }
    }
  }

  public ApplyResult finish(
      long id,
      LoadState state,
      String message,
      long timeMs,
      LoadCounters counters,
      List<LoadFailure> failures) {
    LoadJob job = jobs.get(id);
    if (job == null) {
      return ApplyResult.refused(StatusCode.NOT_FOUND, "no load job " + id);
    }
    if (job.getState() != LoadState.LOAD_RUNNING) {
      return ApplyResult.refused(
          StatusCode.FAILED_PRECONDITION,
          "load job " + id + " already ended (" + LoadStates.name(job.getState()) + ")");
    }
    LoadJob.Builder b = job.toBuilder().setState(state).setMessage(message).setFinishedMs(timeMs);
    if (counters != null) {
      b.setCounters(counters.toBuilder().clearFilesListed().clearBytesListed().clearListingDone());
    }
    addFailures(b, failures);
    jobs.put(id, b.build());
    dropOldFinished();
    return ApplyResult.OK;
  }

  private void dropOldFinished() {
    List<Long> finished =
        jobs.values().stream()
            .filter(j -> j.getState() != LoadState.LOAD_RUNNING)
            .map(LoadJob::getId)
            .toList();
    for (int i = 0; i < finished.size() - MAX_FINISHED; i++) {
      jobs.remove(finished.get(i));
    }
  }

  public Optional<LoadJob> get(long id) {
    return Optional.ofNullable(jobs.get(id));
  }

  /** The latest job for this path. */
  public Optional<LoadJob> latest(String path) {
    return jobs.descendingMap().values().stream().filter(j -> j.getPath().equals(path)).findFirst();
  }

  /** Why a job is refused when {@link #MAX_RUNNING} run. */
  public static String tooMany() {
    return MAX_RUNNING
        + " loads are running, the most at once: wait for one to end, or stop one"
        + " (strata fs distributedLoad --stop PATH)";
  }

  public Optional<LoadJob> running(String path) {
    return jobs.values().stream()
        .filter(j -> j.getPath().equals(path) && j.getState() == LoadState.LOAD_RUNNING)
        .findFirst();
  }

  public List<LoadJob> runningJobs() {
    return jobs.values().stream().filter(j -> j.getState() == LoadState.LOAD_RUNNING).toList();
  }

  public Collection<LoadJob> all() {
    return new ArrayList<>(jobs.values());
  }

  public long lastId() {
    return jobs.isEmpty() ? 0 : jobs.lastKey();
  }

  void restore(Collection<LoadJob> restored) {
    jobs.clear();
    restored.forEach(j -> jobs.put(j.getId(), j));
  }
}
