package io.strata.worker.meta;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.strata.core.proto.MetadataEvent;
import io.strata.core.rpc.GrpcErrors;
import io.strata.core.security.Principal;
import io.strata.core.status.StrataException;
import io.strata.worker.auth.PerUserLimit;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients watching this worker's metadata invalidations (FUSE mounts that keep statuses for as
 * long as this worker would serve them), and the events sent to them. An event is published after
 * the cache dropped what it names, so a watcher that looks the path up again on hearing it gets
 * what the cache has now.
 *
 * <p>A watcher that does not read its stream is cut off once {@link #MAX_UNREAD} events wait for it
 * (gRPC would otherwise buffer them without bound): it hears RESOURCE_EXHAUSTED, forgets all it
 * kept and watches again. Thread-safe: events may be published from any thread; each stream is
 * written under its own lock.
 */
public final class MetadataWatchers {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataWatchers.class);

  /** Events that may wait for a watcher whose transport is full before it is cut off. */
  static final int MAX_UNREAD = 10_000;

  /**
   * Watches one caller other than the cluster's processes may hold at once: each may hold up to
   * {@link #MAX_UNREAD} events in the worker's heap, and gRPC takes any number of streams on one
   * connection (issue 78). A node's mounts by one user are a handful.
   */
  static final int MAX_PER_USER = 16;

  /** How often watchers hear from this worker when nothing changes. */
  public static final java.time.Duration HEARTBEAT = java.time.Duration.ofSeconds(5);

  private static final MetadataEvent ALL = MetadataEvent.newBuilder().setAll(true).build();

  private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();
  private final PerUserLimit perUser = new PerUserLimit(MAX_PER_USER, "metadata watches");
  private volatile VisibleEvents visible;

  /** One watching stream and the events sent while its transport was full. */
  private final class Watcher {
    private final ServerCallStreamObserver<MetadataEvent> stream;

    /** Who watches (null: a call outside any request). */
    private final Principal caller;

    /** The user it counts against, or null for the cluster's processes. */
    private final String user;

    private int unread;
    private boolean done;

    Watcher(ServerCallStreamObserver<MetadataEvent> stream, Principal caller, String user) {
      this.stream = stream;
      this.caller = caller;
      this.user = user;
    }

    synchronized void send(MetadataEvent e) {
      if (done) {
        return;
      }
      unread = stream.isReady() ? 0 : unread + 1;
      if (unread > MAX_UNREAD) {
        finish();
        LOG.info("a metadata watcher fell {} events behind; cut off", MAX_UNREAD);
        stream.onError(
            Status.RESOURCE_EXHAUSTED
                .withDescription("fell behind the worker's metadata events; watch again")
                .asRuntimeException());
        return;
      }
      VisibleEvents scope = visible;
      stream.onNext(scope == null ? e : scope.forCaller(caller, e));
    }

    synchronized void end() {
      finish();
    }

    /** Under the watcher's lock: it is done, and counts no more. */
    private void finish() {
      if (watchers.remove(this)) {
        perUser.release(user);
      }
      done = true;
    }
  }

  /**
   * From now on, a watcher hears only the paths it may see ({@link VisibleEvents}); until then, as
   * where permissions are not checked, every path.
   */
  public void showOnly(VisibleEvents visible) {
    this.visible = visible;
  }

  /**
   * Registers {@code stream} of {@code caller} (null: a call outside any request), tells it so (its
   * first event), and keeps it until it is cancelled; a caller other than the cluster's processes
   * that already holds {@link #MAX_PER_USER} watches is refused with RESOURCE_EXHAUSTED.
   */
  public void watch(ServerCallStreamObserver<MetadataEvent> stream, Principal caller) {
    String user;
    try {
      user = perUser.take(caller);
    } catch (StrataException e) {
      stream.onError(GrpcErrors.toGrpc(e));
      return;
    }
    Watcher w = new Watcher(stream, caller, user);
    watchers.add(w);
    stream.setOnCancelHandler(w::end);
    w.send(MetadataEvent.newBuilder().setSubscribed(true).build());
  }

  /** Cached metadata of {@code paths} (and, {@code recursive}, of all below them) was dropped. */
  void dropped(List<String> paths, boolean recursive) {
    if (watchers.isEmpty()) {
      return;
    }
    publish(MetadataEvent.newBuilder().addAllPaths(paths).setRecursive(recursive).build());
  }

  /** Everything cached may have changed meaning (a mount went, a TTL changed). */
  void droppedAll() {
    publish(ALL);
  }

  /** An empty event, so that a watcher can tell a quiet worker from a stream to a lost host. */
  public void heartbeat() {
    publish(MetadataEvent.getDefaultInstance());
  }

  private void publish(MetadataEvent e) {
    for (Watcher w : watchers) {
      w.send(e);
    }
  }

  /** Ends every watch (the worker is stopping): watchers then forget what they kept. */
  public void close() {
    for (Watcher w : watchers) {
      synchronized (w) {
        if (!w.done) {
          w.finish();
          w.stream.onError(
              Status.UNAVAILABLE.withDescription("worker is stopping").asRuntimeException());
        }
      }
    }
    watchers.clear();
  }

  int count() {
    return watchers.size();
  }

  /** Watches {@code user} holds. */
  int heldBy(String user) {
    return perUser.heldBy(user);
  }
}
