package io.strata.client;

import io.grpc.StatusRuntimeException;
import io.strata.client.cluster.ClusterViewCache;
import io.strata.client.cluster.WorkerChannels;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.CreateNodeRequest;
import io.strata.core.proto.DeleteRequest;
import io.strata.core.proto.InvalidateMetadataRequest;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.RenameRequest;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.proto.SetXattrRequest;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerServiceGrpc.WorkerServiceBlockingStub;
import io.strata.core.proto.WorkerState;
import io.strata.core.rpc.GrpcErrors;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace changes of a client. Each is sent once, to the owner of the path (a retry on
 * another worker could apply it twice); then this client forgets what it cached of the touched
 * paths, and the owners of the other touched paths (a parent's, a rename's destination's) are told
 * to forget theirs. Thread-safe.
 */
final class Changes {
  private static final Logger LOG = LoggerFactory.getLogger(Changes.class);

  private final ClusterViewCache view;
  private final WorkerChannels workers;
  private final MetadataCache metadata;

  Changes(ClusterViewCache view, WorkerChannels workers, MetadataCache metadata) {
    this.view = view;
    this.workers = workers;
    this.metadata = metadata;
  }

  void mkdir(MkdirRequest req) {
    StrataPath p = StrataPath.of(req.getPath());
    WorkerInfo owner = send(p, w -> w.mkdir(req));
    // With parents, every ancestor may be new: their listings go too (depth, not a scan).
    List<StrataPath> touched = new ArrayList<>();
    for (StrataPath a = p; ; a = a.parent()) {
      metadata.invalidate(a);
      if (a.isRoot()) {
        break;
      }
      touched.add(a.parent());
      if (!req.getParents()) {
        break;
      }
    }
    tellOthers(owner, touched.toArray(StrataPath[]::new));
  }

  /** A link or special node; a hard link also changes its file's link count. */
  void createNode(CreateNodeRequest req) {
    StrataPath p = StrataPath.of(req.getPath());
    WorkerInfo owner = send(p, w -> w.createNode(req));
    metadata.invalidate(p);
    if (req.getLinkTo().isEmpty()) {
      tellOthers(owner, p.parent());
    } else {
      StrataPath existing = StrataPath.of(req.getLinkTo());
      metadata.invalidate(existing);
      tellOthers(owner, p.parent(), existing);
    }
  }

  void delete(StrataPath p, boolean recursive) {
    WorkerInfo owner =
        send(
            p,
            w ->
                w.delete(
                    DeleteRequest.newBuilder()
                        .setPath(p.toString())
                        .setRecursive(recursive)
                        .build()));
    metadata.invalidateTree(p);
    tellOthers(owner, p.parent());
  }

  void rename(StrataPath from, StrataPath to, boolean replace) {
    WorkerInfo owner =
        send(
            from,
            w ->
                w.rename(
                    RenameRequest.newBuilder()
                        .setSrc(from.toString())
                        .setDst(to.toString())
                        .setReplace(replace)
                        .build()));
    metadata.invalidateTree(from);
    metadata.invalidateTree(to);
    tellOthers(owner, from.parent(), to, to.parent());
  }

  void setAttributes(SetAttributesRequest req) {
    StrataPath p = StrataPath.of(req.getPath());
    WorkerInfo owner = send(p, w -> w.setAttributes(req));
    written(owner, p);
  }

  void setXattr(SetXattrRequest req) {
    StrataPath p = StrataPath.of(req.getPath());
    WorkerInfo owner = send(p, w -> w.setXattr(req));
    written(owner, p);
  }

  /** {@code p} was written (or its attributes changed) through {@code owner}. */
  void written(WorkerInfo owner, StrataPath p) {
    metadata.invalidate(p);
    tellOthers(owner, p.parent());
  }

  /**
   * Tells every live worker to forget what it caches of {@code p} (and, {@code recursive}, of
   * everything under it), so that the next look-up reads the UFS and checks fingerprints; returns
   * how many workers were told. A worker that cannot be reached forgets within its metadata TTL.
   */
  int invalidate(StrataPath p, boolean recursive) {
    if (recursive) {
      metadata.invalidateTree(p);
    } else {
      metadata.invalidate(p);
    }
    InvalidateMetadataRequest request =
        InvalidateMetadataRequest.newBuilder()
            .addPaths(p.toString())
            .setRecursive(recursive)
            .build();
    return everyLiveWorker("invalidate " + p, s -> s.invalidateMetadata(request)).size();
  }

  /**
   * Asks every live worker, one after another; their answers. A worker that fails is left out (its
   * reason logged); fails only when none answered.
   */
  <T> List<T> everyLiveWorker(String what, Function<WorkerServiceBlockingStub, T> rpc) {
    List<T> answers = new ArrayList<>();
    StrataException last = null;
    List<WorkerInfo> live =
        view.get().view().getWorkersList().stream()
            .filter(w -> w.getState() == WorkerState.LIVE)
            .toList();
    for (WorkerInfo w : live) {
      try {
        answers.add(call(w, rpc));
      } catch (StrataException e) {
        last = e;
        LOG.debug("could not {} on {}: {}", what, w.getId(), e.oneLine());
      }
    }
    if (answers.isEmpty() && last != null) {
      throw last;
    }
    return answers;
  }

  /** The worker a change of {@code p} goes to. */
  WorkerInfo owner(StrataPath p) {
    return view.owners(p.toString(), 1).get(0);
  }

  private WorkerInfo send(StrataPath p, Function<WorkerServiceBlockingStub, ?> rpc) {
    WorkerInfo owner = owner(p);
    call(owner, rpc);
    return owner;
  }

  /**
   * Tells the owners of {@code touched} paths (other than {@code done}, which knows) to forget
   * them.
   */
  private void tellOthers(WorkerInfo done, StrataPath... touched) {
    for (StrataPath p : touched) {
      try {
        WorkerInfo owner = owner(p);
        if (!owner.getId().equals(done.getId())) {
          call(
              owner,
              w ->
                  w.invalidateMetadata(
                      InvalidateMetadataRequest.newBuilder().addPaths(p.toString()).build()));
        }
      } catch (StrataException e) {
        // The cached entry then expires with its TTL.
        LOG.debug("could not invalidate {}: {}", p, e.oneLine());
      }
    }
  }

  /** One gRPC call to {@code w}, its failure as a StrataException. */
  <T> T call(WorkerInfo w, Function<WorkerServiceBlockingStub, T> rpc) {
    try {
      return rpc.apply(workers.blocking(w));
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromGrpc(e, "worker " + w.getId());
    }
  }
}
