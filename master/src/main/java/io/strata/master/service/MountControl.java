package io.strata.master.service;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountTableView;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import java.util.Comparator;
import java.util.List;

/**
 * The leader's side of the live mount table: a mount is checked ({@link MountChecks}), journaled,
 * and answered once the live workers have applied it; views show credentials redacted.
 */
final class MountControl {
  private final MasterJournal journal;
  private final Propagation propagation;
  private final MountChecks checks;

  MountControl(MasterJournal journal, Propagation propagation, List<String> localRoots) {
    this.journal = journal;
    this.propagation = propagation;
    this.checks = new MountChecks(localRoots);
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

  /** The new table once every live worker has applied it, or with those still behind counted. */
  private MountTableView viewOnceWorkersHaveIt() {
    long version = journal.stateMachine().read(s -> s.mounts().version());
    int behind = propagation.awaitWorkers(WorkerLiveness.Beat::mountTableVersion, version);
    return view().toBuilder().setWorkersBehind(behind).build();
  }
}
