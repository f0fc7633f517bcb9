package io.strata.master.load;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.ListLoadsResponse;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadOptions;
import io.strata.core.proto.LoadState;
import io.strata.core.proto.StopLoadRequest;
import io.strata.core.proto.SubmitLoadRequest;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import io.strata.master.state.LoadJobs;
import io.strata.master.state.LoadStates;
import java.time.Clock;
import java.util.Optional;

/** What the master's load RPCs do, on the leader: check, submit, report, stop. */
public final class LoadControl {
  static final int DEFAULT_BATCH = 100;

  private final MasterJournal journal;
  private final WorkerStubs stubs;
  private final LoadScheduler scheduler;
  private final Rings rings;
  private final PathAccess access;
  private final Clock clock;

  public LoadControl(
      MasterJournal journal,
      WorkerStubs stubs,
      LoadScheduler scheduler,
      int virtualNodes,
      PathAccess access,
      Clock clock) {
    this.journal = journal;
    this.stubs = stubs;
    this.access = access;
    this.scheduler = scheduler;
    this.rings = new Rings(journal, virtualNodes);
    this.clock = clock;
  }

  /**
   * Loads one user may run at once: a few datasets at a time, so that one user cannot take the
   * cluster's {@link LoadJobs#MAX_RUNNING} from everyone else.
   */
  public static final int MAX_RUNNING_PER_USER = 4;

  /** One submission at a time: a user's count and their new job are one step. */
  public synchronized LoadJob submit(SubmitLoadRequest req) {
    String path = StrataPath.of(req.getPath()).toString();
    LoadOptions o = req.getOptions();
    if (o.getReplication() < 0 || o.getBatchSize() < 0 || o.getBandwidthBytes() < 0) {
      throw StrataException.invalidArgument(
          "replication, batch size and bandwidth must not be negative");
    }
    if (journal.stateMachine().read(s -> s.loads().runningJobs().size()) >= LoadJobs.MAX_RUNNING) {
      throw new StrataException(StatusCode.RESOURCE_EXHAUSTED, LoadJobs.tooMany());
    }
    // The job walks as the cluster: a user loads only a folder they could list themselves. Checked
    // first: the status is looked up as the cluster, and what it says (no such path, a file) must
    // not tell a user about paths they may not see.
    access.require(path, PathAccess.READ, "load");
    FileStatus status = stubs.status(rings.owner(path), path);
    if (!status.getDirectory()) {
      throw new StrataException(
          StatusCode.NOT_A_DIRECTORY, path + " is a file; distributedLoad loads a folder");
    }
    Principal caller = Principal.current();
    boolean checked = caller != null && caller.role() == Role.USER;
    if (checked && runningOf(caller.user()) >= MAX_RUNNING_PER_USER) {
      throw new StrataException(
          StatusCode.RESOURCE_EXHAUSTED,
          caller.user()
              + " runs "
              + MAX_RUNNING_PER_USER
              + " loads already, the most a user may at once: wait for one to end, or stop one"
              + " (strata fs distributedLoad --stop PATH)");
    }
    LoadOptions options =
        o.toBuilder()
            .setReplication(Math.max(1, o.getReplication()))
            .setBatchSize(o.getBatchSize() == 0 ? DEFAULT_BATCH : o.getBatchSize())
            .build();
    long id = Math.max(clock.millis(), journal.stateMachine().read(s -> s.loads().lastId()) + 1);
    LoadJob job =
        LoadJob.newBuilder()
            .setId(id)
            .setPath(path)
            .setOptions(options)
            .setState(LoadState.LOAD_RUNNING)
            .setSubmittedMs(clock.millis())
            .setFlatWalk(listsFlat(StrataPath.of(path)))
            .setOwner(caller == null ? "" : caller.user())
            .setOwnerChecked(checked)
            .build();
    journal.submit(new MasterCommand.SubmitLoad(job)).orThrow();
    scheduler.lead();
    return job;
  }

  private long runningOf(String user) {
    return journal
        .stateMachine()
        .read(
            s ->
                s.loads().runningJobs().stream()
                    .filter(j -> j.getOwnerChecked() && j.getOwner().equals(user))
                    .count());
  }

  /**
   * Whether a load of {@code path} lists its tree flat: when its store can, and no other mount lies
   * under it (a flat listing of one store would miss that mount's files).
   */
  private boolean listsFlat(StrataPath path) {
    return journal
        .stateMachine()
        .read(
            s -> {
              MountTable table = s.mounts().table();
              return UfsFactory.listsFlat(table.resolve(path).mount().ufsUri())
                  && table.mounts().stream()
                      .noneMatch(m -> !m.path().equals(path) && m.path().isUnder(path));
            });
  }

  public LoadJob get(GetLoadRequest req) {
    LoadJob job = find(req.getId(), req.getPath());
    requireOwn(job, "see");
    if (job.getState() != LoadState.LOAD_RUNNING) {
      // Its figures are the ones journaled with its end: batches still in flight when it was
      // stopped must not add to them here, or the next leader would report less than this one.
      return job;
    }
    Optional<io.strata.core.proto.LoadCounters> live = scheduler.live(job.getId());
    return live.map(c -> job.toBuilder().setCounters(c).build()).orElse(job);
  }

  public LoadJob stop(StopLoadRequest req) {
    LoadJob job = find(req.getId(), req.getPath());
    requireOwn(job, "stop");
    if (job.getState() != LoadState.LOAD_RUNNING) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "load job "
              + job.getId()
              + " of "
              + job.getPath()
              + " is not running ("
              + LoadStates.name(job.getState())
              + ")");
    }
    journal
        .submit(
            new MasterCommand.FinishLoad(
                job.getId(),
                LoadState.LOAD_STOPPED,
                "stopped by an operator",
                clock.millis(),
                scheduler.live(job.getId()).orElse(null)))
        .orThrow();
    return get(GetLoadRequest.newBuilder().setId(job.getId()).build());
  }

  /** The jobs the caller may see: a user's own, or all of them for an admin and the cluster. */
  public ListLoadsResponse list() {
    Principal caller = Principal.current();
    return ListLoadsResponse.newBuilder()
        .addAllJobs(
            journal.stateMachine().read(s -> s.loads().all()).stream()
                .filter(job -> owns(caller, job))
                .toList())
        .build();
  }

  /**
   * A user sees and stops only their own jobs (another's names a path they may not list); an admin
   * and the cluster's processes, any. The refusal names the job by its number only.
   */
  private static void requireOwn(LoadJob job, String what) {
    Principal caller = Principal.current();
    if (!owns(caller, job)) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          "load job "
              + job.getId()
              + " is "
              + (job.getOwner().isEmpty() ? "the cluster's" : job.getOwner() + "'s")
              + "; "
              + caller.user()
              + " may "
              + what
              + " only their own jobs (an admin, any)");
    }
  }

  private static boolean owns(Principal caller, LoadJob job) {
    return caller == null || caller.role() != Role.USER || caller.user().equals(job.getOwner());
  }

  private LoadJob find(long id, String path) {
    if (id != 0) {
      return journal
          .stateMachine()
          .read(s -> s.loads().get(id))
          .orElseThrow(() -> new StrataException(StatusCode.NOT_FOUND, "no load job " + id));
    }
    String p = StrataPath.of(path).toString();
    return journal
        .stateMachine()
        .read(s -> s.loads().latest(p))
        .orElseThrow(() -> new StrataException(StatusCode.NOT_FOUND, "no load job for " + p));
  }
}
