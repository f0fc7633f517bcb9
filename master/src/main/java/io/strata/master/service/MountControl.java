package io.strata.master.service;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountTableView;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

/**
 * The leader's side of the live mount table: a mount is checked ({@link MountChecks}), journaled,
 * and answered once the live workers have applied it; views show credentials redacted.
 */
final class MountControl {
  /** How long a mount or unmount waits for live workers to apply it before answering. */
  private static final Duration PROPAGATION = Duration.ofSeconds(10);

  private final MasterJournal journal;
  private final WorkerLiveness liveness;
  private final MountChecks checks = new MountChecks();

  MountControl(MasterJournal journal, WorkerLiveness liveness) {
    this.journal = journal;
    this.liveness = liveness;
  }

  MountTableView mount(MountPoint requested) {
    Mount mount = checks.check(requested, table());
    journal.submit(new MasterCommand.AddMount(mount, false)).orThrow();
    return viewOnceWorkersHaveIt();
  }

  MountTableView unmount(String path) {
    journal.submit(new MasterCommand.RemoveMount(StrataPath.of(path).toString())).orThrow();
    return viewOnceWorkersHaveIt();
  }

  MountTableView view() {
    MountTable table = table();
    MountTableView.Builder view = MountTableView.newBuilder().setVersion(table.version());
    table.mounts().stream()
        .sorted(Comparator.comparing(Mount::path))
        .forEach(m -> view.addMounts(m.toRedactedProto()));
    return view.build();
  }

  static List<MountPoint> redacted(List<MountPoint> mounts) {
    return mounts.stream().map(m -> Mount.fromProto(m).toRedactedProto()).toList();
  }

  private MountTable table() {
    return journal.stateMachine().read(s -> s.mounts().table());
  }

  /**
   * The new table once every live worker has applied it (so that the next request finds it there),
   * or after {@link #PROPAGATION} with the workers still behind counted.
   */
  private MountTableView viewOnceWorkersHaveIt() {
    long version = journal.stateMachine().read(s -> s.mounts().version());
    long deadline = System.nanoTime() + PROPAGATION.toNanos();
    int behind = liveness.behindOnMounts(liveWorkers(), version);
    while (behind > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      behind = liveness.behindOnMounts(liveWorkers(), version);
    }
    return view().toBuilder().setWorkersBehind(behind).build();
  }

  private List<String> liveWorkers() {
    return journal.readView().getWorkersList().stream()
        .filter(w -> w.getState() == WorkerState.LIVE)
        .map(WorkerInfo::getId)
        .toList();
  }
}
