package io.strata.master.load;

import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.ring.HashRing;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterJournal;
import java.util.List;
import java.util.Optional;

/**
 * The ring of LIVE workers as clients build it (same members, identities and virtual nodes), so a
 * job loads each file onto the worker that readers will ask. Rebuilt when membership changes.
 */
final class Rings implements LoadDispatcher.Ring {
  private final MasterJournal journal;
  private final int virtualNodes;
  private long version = -1;
  private HashRing<WorkerInfo> ring;

  Rings(MasterJournal journal, int virtualNodes) {
    this.journal = journal;
    this.virtualNodes = virtualNodes;
  }

  private synchronized HashRing<WorkerInfo> current() {
    long v = journal.stateMachine().read(s -> s.membership().version());
    if (v != version) {
      List<WorkerInfo> live =
          journal
              .stateMachine()
              .read(
                  s ->
                      s.membership().all().stream()
                          .filter(w -> w.getState() == WorkerState.LIVE)
                          .toList());
      ring = HashRing.of(live, WorkerInfo::getId, virtualNodes);
      version = v;
    }
    return ring;
  }

  /** The first {@code count} distinct workers for this path, owner first. */
  List<WorkerInfo> owners(String path, int count) {
    HashRing<WorkerInfo> r = current();
    return r.isEmpty() ? List.of() : r.owners(path, Math.min(count, r.members().size()));
  }

  WorkerInfo owner(String path) {
    List<WorkerInfo> o = owners(path, 1);
    if (o.isEmpty()) {
      throw StrataException.unavailable("no live worker in the cluster", null);
    }
    return o.get(0);
  }

  @Override
  public List<String> ownerIds(String path, int count) {
    return owners(path, count).stream().map(WorkerInfo::getId).toList();
  }

  @Override
  public boolean isLive(String workerId) {
    return worker(workerId).isPresent();
  }

  Optional<WorkerInfo> worker(String id) {
    return current().members().stream().filter(w -> w.getId().equals(id)).findFirst();
  }

  @Override
  public java.util.Set<String> memberIds() {
    return current().members().stream()
        .map(WorkerInfo::getId)
        .collect(java.util.stream.Collectors.toSet());
  }

  int liveCount() {
    return current().members().size();
  }
}
