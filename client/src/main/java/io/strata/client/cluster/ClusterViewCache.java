package io.strata.client.cluster;

import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.ring.HashRing;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The client's copy of the cluster view and the hash ring of LIVE workers built from it.
 *
 * <p>The master stays out of the read path: only the first use waits for a view. Once there is one,
 * a view older than the refresh interval, or one a caller found a worker of unreachable ({@link
 * #invalidate}), is fetched again in the background while callers go on with the one they have. A
 * master that is down (restarting, or the whole quorum lost) then holds no request: the workers of
 * the last view serve, and the ring failover moves past any that died. At most one fetch runs at a
 * time, and callers that must wait (no view yet) share it, so a master that does not answer costs
 * one retry budget, not one per caller in turn. Thread-safe.
 */
public final class ClusterViewCache implements AutoCloseable {
  /** One fetched view and its ring. */
  public record Snapshot(ClusterView view, HashRing<WorkerInfo> ring, long fetchedAtNanos) {}

  /**
   * After a fetch failed, callers go on with the view they have for this long before another fetch
   * is begun (one that fails at once, refused by a live master, would otherwise be begun by every
   * call).
   */
  static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(1);

  private final Supplier<ClusterView> fetch;
  private final Supplier<Duration> refreshInterval;
  private final int virtualNodes;
  private final LongSupplier nanoTime;
  private final Consumer<ClusterView> onFetch;

  /** Runs background fetches: one at a time, on a thread that ends when idle. */
  private final ThreadPoolExecutor background =
      new ThreadPoolExecutor(
          0,
          1,
          30,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          DaemonThreads.factory("cluster-view"));

  private volatile Snapshot current;

  /** A caller found a worker of the current view unreachable since it was fetched. */
  private volatile boolean suspect;

  /** The fetch under way, if any. Guarded by this. */
  private CompletableFuture<Snapshot> fetching;

  /** Whether the last fetch failed, and when a background fetch may be begun again. By this. */
  private boolean failed;

  private long notBeforeNanos;

  /**
   * @param fetch asks the master for the view (retrying within its budget); throws when it cannot
   * @param refreshInterval read at each use, so it may change while running
   * @param onFetch told of every view fetched, before it is used
   */
  public ClusterViewCache(
      Supplier<ClusterView> fetch,
      Supplier<Duration> refreshInterval,
      int virtualNodes,
      LongSupplier nanoTime,
      Consumer<ClusterView> onFetch) {
    this.fetch = fetch;
    this.onFetch = onFetch;
    this.refreshInterval = refreshInterval;
    this.virtualNodes = virtualNodes;
    this.nanoTime = nanoTime;
  }

  /** The fetch of a view from {@code master}'s leader, retrying within the client's budget. */
  public static Supplier<ClusterView> askingThe(MasterClient master) {
    return () ->
        master.call(
            "getClusterView",
            stub -> stub.getClusterView(GetClusterViewRequest.getDefaultInstance()));
  }

  /**
   * The current view: fetched and waited for when there is none yet; otherwise the one there is,
   * with a fresh one asked for in the background when it is stale or suspect.
   */
  public Snapshot get() {
    Snapshot s = current;
    if (s == null) {
      return fetchAndWait();
    }
    if (suspect || nanoTime.getAsLong() - s.fetchedAtNanos() > refreshInterval.get().toNanos()) {
      fetchInBackground();
    }
    return s;
  }

  /** Fetches a new view now and waits for it (joining a fetch under way). */
  public Snapshot refresh() {
    return fetchAndWait();
  }

  /**
   * A worker of the view did not answer: a fresh view is asked for, and callers go on with this one
   * until it comes (the ring failover moves past workers already asked).
   */
  public void invalidate() {
    suspect = true;
  }

  /** Up to {@code count} workers for {@code key}: its owner first, then the next on the ring. */
  public List<WorkerInfo> owners(String key, int count) {
    HashRing<WorkerInfo> ring = get().ring();
    if (ring.isEmpty()) {
      // Perhaps a view fetched before any worker registered: ask again, in the background.
      suspect = true;
      throw new StrataException(StatusCode.UNAVAILABLE, "no live worker in the cluster");
    }
    return ring.owners(key, count);
  }

  private Snapshot fetchAndWait() {
    CompletableFuture<Snapshot> f;
    boolean mine;
    synchronized (this) {
      mine = fetching == null;
      if (mine) {
        fetching = new CompletableFuture<>();
      }
      f = fetching;
    }
    if (mine) {
      runFetch(f);
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof StrataException se
          ? se
          : StrataException.internal("fetching the cluster view: " + e.getCause(), e.getCause());
    }
  }

  private void fetchInBackground() {
    CompletableFuture<Snapshot> f;
    synchronized (this) {
      if (fetching != null || (failed && nanoTime.getAsLong() - notBeforeNanos < 0)) {
        return;
      }
      f = new CompletableFuture<>();
      fetching = f;
    }
    try {
      background.execute(() -> runFetch(f));
    } catch (RejectedExecutionException closed) {
      finish(f, null, StrataException.unavailable("the client is closed", closed));
    }
  }

  /** Runs one fetch and hands its outcome to everyone waiting on {@code f}. */
  private void runFetch(CompletableFuture<Snapshot> f) {
    Snapshot s;
    try {
      ClusterView view = fetch.get();
      onFetch.accept(view);
      List<WorkerInfo> live =
          view.getWorkersList().stream().filter(w -> w.getState() == WorkerState.LIVE).toList();
      s =
          new Snapshot(
              view, HashRing.of(live, WorkerInfo::getId, virtualNodes), nanoTime.getAsLong());
    } catch (RuntimeException e) {
      finish(f, null, e);
      return;
    } catch (Error e) {
      // Whoever waits must hear of it, and the next fetch must not join this one forever.
      finish(f, null, StrataException.internal("fetching the cluster view: " + e, e));
      throw e;
    }
    finish(f, s, null);
  }

  private void finish(CompletableFuture<Snapshot> f, Snapshot s, RuntimeException error) {
    synchronized (this) {
      fetching = null;
      failed = error != null;
      if (error == null) {
        current = s;
        suspect = false;
      } else {
        notBeforeNanos = nanoTime.getAsLong() + RETRY_AFTER_FAILURE.toNanos();
      }
    }
    if (error == null) {
      f.complete(s);
    } else {
      f.completeExceptionally(error);
    }
  }

  @Override
  public void close() {
    background.shutdownNow();
  }
}
