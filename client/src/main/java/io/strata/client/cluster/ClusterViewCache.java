package io.strata.client.cluster;

import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.ring.HashRing;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The client's copy of the cluster view and the hash ring of LIVE workers built from it. The view
 * is fetched on first use and again when it is older than the refresh interval or when a caller
 * reports a worker unreachable. Thread-safe.
 */
public final class ClusterViewCache {
  /** One fetched view and its ring. */
  public record Snapshot(ClusterView view, HashRing<WorkerInfo> ring, long fetchedAtNanos) {}

  private final MasterClient master;
  private final Supplier<Duration> refreshInterval;
  private final int virtualNodes;
  private final LongSupplier nanoTime;
  private final Consumer<ClusterView> onFetch;
  private volatile Snapshot current;

  public ClusterViewCache(
      MasterClient master, Duration refreshInterval, int virtualNodes, LongSupplier nanoTime) {
    this(master, () -> refreshInterval, virtualNodes, nanoTime, v -> {});
  }

  /**
   * @param refreshInterval read at each use, so it may change while running
   * @param onFetch told of every view fetched, before it is used
   */
  public ClusterViewCache(
      MasterClient master,
      Supplier<Duration> refreshInterval,
      int virtualNodes,
      LongSupplier nanoTime,
      Consumer<ClusterView> onFetch) {
    this.onFetch = onFetch;
    this.master = master;
    this.refreshInterval = refreshInterval;
    this.virtualNodes = virtualNodes;
    this.nanoTime = nanoTime;
  }

  public Snapshot get() {
    Snapshot s = current;
    if (s == null || nanoTime.getAsLong() - s.fetchedAtNanos() > refreshInterval.get().toNanos()) {
      s = refresh(s);
    }
    return s;
  }

  /** Fetches a new view now. */
  public Snapshot refresh() {
    return refresh(current);
  }

  /** Forget the view: the next caller fetches a new one (after a worker failed to answer). */
  public void invalidate() {
    current = null;
  }

  /** Up to {@code count} workers for {@code key}: its owner first, then the next on the ring. */
  public List<WorkerInfo> owners(String key, int count) {
    HashRing<WorkerInfo> ring = get().ring();
    if (ring.isEmpty()) {
      throw new StrataException(StatusCode.UNAVAILABLE, "no live worker in the cluster");
    }
    return ring.owners(key, count);
  }

  @SuppressWarnings("ReferenceEquality") // the same fetch, not an equal view
  private synchronized Snapshot refresh(Snapshot seen) {
    Snapshot s = current;
    if (s != seen && s != null) {
      return s;
    }
    ClusterView view =
        master.call(
            "getClusterView",
            stub -> stub.getClusterView(GetClusterViewRequest.getDefaultInstance()));
    onFetch.accept(view);
    List<WorkerInfo> live =
        view.getWorkersList().stream().filter(w -> w.getState() == WorkerState.LIVE).toList();
    s =
        new Snapshot(
            view, HashRing.of(live, WorkerInfo::getId, virtualNodes), nanoTime.getAsLong());
    current = s;
    return s;
  }
}
