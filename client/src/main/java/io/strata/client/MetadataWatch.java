package io.strata.client;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.strata.client.cluster.WorkerChannels;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.MetadataEvent;
import io.strata.core.proto.WatchMetadataRequest;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Periodic;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@code WatchMetadata} stream open to every LIVE worker of the cluster view and hands
 * their events to a {@link MetadataCache}, so that the cache may keep entries for as long as their
 * workers would serve them.
 *
 * <p>The watch is healthy while every LIVE worker's stream has said it is subscribed and has been
 * heard from within {@link #SILENCE} (workers send a heartbeat event every few seconds: a stream to
 * a host that vanished without a reset would otherwise look alive). Whenever that stops being true
 * — a stream broke, fell silent, or a worker joined that is not watched yet — the cache forgets
 * everything, since an event may have been missed; a broken stream is opened again after {@link
 * #RETRY}, as long as its worker is in the view. Thread-safe.
 */
final class MetadataWatch implements MetadataCache.Watching, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataWatch.class);

  static final Duration RETRY = Duration.ofSeconds(1);

  /** A stream not heard from for this long counts as broken. */
  static final Duration SILENCE = Duration.ofSeconds(15);

  private final WorkerChannels channels;
  private final MetadataCache cache;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("metadata-watch"));

  /** The stream to each LIVE worker, by id. Guarded by this. */
  private final Map<String, Stream> streams = new HashMap<>();

  private boolean closed;
  private volatile boolean healthy;

  MetadataWatch(WorkerChannels channels, MetadataCache cache, LongSupplier nanoTime) {
    this.channels = channels;
    this.cache = cache;
    this.nanoTime = nanoTime;
    long check = SILENCE.toMillis() / 3;
    Periodic.every(
        timers, "metadata watch silence", check, check, TimeUnit.MILLISECONDS, this::checkSilence);
  }

  @Override
  public boolean healthy() {
    return healthy;
  }

  /** Watches the LIVE workers of {@code view}; stops watching those no longer in it. */
  synchronized void onView(ClusterView view) {
    if (closed) {
      return;
    }
    Map<String, WorkerInfo> live = new HashMap<>();
    for (WorkerInfo w : view.getWorkersList()) {
      if (w.getState() == WorkerState.LIVE) {
        live.put(w.getId(), w);
      }
    }
    streams
        .entrySet()
        .removeIf(
            e -> {
              WorkerInfo w = live.get(e.getKey());
              boolean gone = w == null || !w.getAddress().equals(e.getValue().worker.getAddress());
              if (gone) {
                e.getValue().cancel();
              }
              return gone;
            });
    boolean joined = false;
    for (WorkerInfo w : live.values()) {
      if (!streams.containsKey(w.getId())) {
        joined = true;
        streams.put(w.getId(), new Stream(w));
      }
    }
    if (joined) {
      // Until the new streams say they are subscribed, that worker's changes reach no one here.
      lost("a worker to watch joined");
      streams.values().forEach(Stream::startIfNew);
    } else {
      updateHealth();
    }
  }

  /** Healthy again once every stream is subscribed and recently heard from. Holds this. */
  private void updateHealth() {
    healthy = !closed && !streams.isEmpty() && streams.values().stream().allMatch(Stream::alive);
  }

  /** An event may have been missed: nothing kept so far may be trusted. Holds this. */
  private void lost(String why) {
    healthy = false;
    LOG.debug("metadata watch: {}; forgetting every kept status", why);
    cache.droppedAll();
  }

  private synchronized void checkSilence() {
    long now = nanoTime.getAsLong();
    for (Stream s : streams.values().toArray(Stream[]::new)) {
      if (s.subscribed && now - s.heardAtNanos > SILENCE.toNanos()) {
        LOG.info(
            "metadata watch of worker {}: silent for {}; watching again",
            s.worker.getId(),
            SILENCE);
        s.cancel();
        broke(s);
      }
    }
  }

  /** Holds this. */
  private void broke(Stream s) {
    if (streams.get(s.worker.getId()) != s) {
      return;
    }
    lost("the watch of worker " + s.worker.getId() + " broke");
    Stream again = new Stream(s.worker);
    streams.put(s.worker.getId(), again);
    var unused =
        timers.schedule(
            () -> {
              synchronized (this) {
                if (!closed && streams.get(again.worker.getId()) == again) {
                  again.startIfNew();
                }
              }
            },
            RETRY.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /** One worker's stream of events. */
  private final class Stream
      implements ClientResponseObserver<WatchMetadataRequest, MetadataEvent> {
    final WorkerInfo worker;
    private ClientCallStreamObserver<WatchMetadataRequest> call;
    private boolean started;
    private boolean cancelled;
    volatile boolean subscribed;
    volatile long heardAtNanos;

    Stream(WorkerInfo worker) {
      this.worker = worker;
    }

    /** Holds MetadataWatch.this. */
    void startIfNew() {
      if (started) {
        return;
      }
      started = true;
      channels.watch(worker).watchMetadata(WatchMetadataRequest.getDefaultInstance(), this);
    }

    boolean alive() {
      return subscribed && nanoTime.getAsLong() - heardAtNanos <= SILENCE.toNanos();
    }

    /** Holds MetadataWatch.this. */
    void cancel() {
      cancelled = true;
      if (call != null) {
        call.cancel("no longer watched", null);
      }
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<WatchMetadataRequest> requestStream) {
      this.call = requestStream;
    }

    @Override
    public void onNext(MetadataEvent e) {
      heardAtNanos = nanoTime.getAsLong();
      if (e.getSubscribed()) {
        synchronized (MetadataWatch.this) {
          subscribed = true;
          updateHealth();
        }
      } else if (e.getAll()) {
        cache.droppedAll();
      } else if (e.getPathsCount() > 0) {
        cache.dropped(e.getPathsList(), e.getRecursive());
      }
    }

    @Override
    public void onError(Throwable t) {
      ended(t.toString());
    }

    @Override
    public void onCompleted() {
      ended("ended");
    }

    private void ended(String why) {
      synchronized (MetadataWatch.this) {
        if (cancelled || closed) {
          return;
        }
        LOG.debug("metadata watch of worker {}: {}", worker.getId(), why);
        broke(this);
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    healthy = false;
    streams.values().forEach(Stream::cancel);
    streams.clear();
    timers.shutdownNow();
  }
}
