package io.strata.client;

import io.strata.client.cluster.ClientConfSync;
import io.strata.client.cluster.ClusterViewCache;
import io.strata.client.cluster.WorkerChannels;
import io.strata.client.data.UfsFallback;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.Credentials;
import io.strata.core.util.DaemonThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What one client holds for its life, built in the order each part needs the others and closed in
 * reverse: its own copy of the configuration (which follows the cluster's overrides, see {@link
 * ClientConfSync}), the master and worker connections, the cluster view and its ring, the metadata
 * cache with the workers' invalidations, the ring failover, the UFS fallback, and the data plane,
 * started by the first read (a client that only lists, the shell, never starts it).
 */
final class ClientContext implements AutoCloseable {
  private final Configuration conf;
  private final Credentials credentials;
  private final MasterClient master;
  private final ClientConfSync confSync;
  private final ClusterViewCache view;
  private final WorkerChannels workers;
  private final MetadataCache metadata;

  /** The workers' invalidations, when this client keeps statuses as long as they would. */
  private final MetadataWatch watch;

  private final ExecutorService failoverThreads =
      Executors.newCachedThreadPool(DaemonThreads.factory("read-failover"));
  private final RingFailover failover;
  private final UfsFallback ufs;
  private final Changes changes;
  private final Object readLock = new Object();
  private volatile ReadPath reads;

  ClientContext(Configuration given, Credentials credentials) {
    this.conf = given.copy();
    this.credentials = credentials;
    this.master = new MasterClient(conf, credentials);
    this.confSync = new ClientConfSync(conf, master);
    this.view =
        new ClusterViewCache(
            ClusterViewCache.askingThe(master),
            () -> conf.get(UserKeys.CLUSTER_VIEW_REFRESH),
            conf.get(CommonKeys.RING_VIRTUAL_NODES),
            System::nanoTime,
            this::onView);
    this.workers = new WorkerChannels(conf.get(UserKeys.RPC_TIMEOUT), credentials);
    this.metadata =
        new MetadataCache(
            conf.get(UserKeys.METADATA_CACHE_TTL), conf.get(UserKeys.METADATA_CACHE_MAX_ENTRIES));
    this.watch =
        conf.get(UserKeys.METADATA_CACHE_WATCH)
            ? new MetadataWatch(workers, metadata, System::nanoTime)
            : null;
    if (watch != null) {
      metadata.watchedBy(watch);
    }
    if (conf.get(UserKeys.METADATA_CACHE_IMMUTABLE)) {
      metadata.keepUntilDropped();
    }
    this.failover =
        new RingFailover(
            RingFailover.ring(view), () -> conf.get(UserKeys.UFS_FALLBACK), failoverThreads);
    this.ufs = new UfsFallback(() -> view.get().view());
    this.changes = new Changes(view, workers, metadata);
  }

  private void onView(ClusterView v) {
    if (watch != null) {
      watch.onView(v);
    }
    confSync.onView(v);
    confSync.start(view::refresh);
  }

  Configuration conf() {
    return conf;
  }

  ClusterViewCache view() {
    return view;
  }

  WorkerChannels workers() {
    return workers;
  }

  MetadataCache metadata() {
    return metadata;
  }

  RingFailover failover() {
    return failover;
  }

  Changes changes() {
    return changes;
  }

  /** The data plane, started now if no read has started it yet. */
  ReadPath reads() {
    ReadPath r = reads;
    if (r == null) {
      synchronized (readLock) {
        r = reads;
        if (r == null) {
          r = new ReadPath(conf, credentials, failover, ufs);
          reads = r;
        }
      }
    }
    return r;
  }

  /** The data plane if a read started it, else null. */
  ReadPath readsIfStarted() {
    return reads;
  }

  @Override
  public void close() {
    synchronized (readLock) {
      if (reads != null) {
        reads.close();
        reads = null;
      }
    }
    failoverThreads.shutdown();
    if (watch != null) {
      watch.close();
    }
    view.close();
    ufs.close();
    confSync.close();
    workers.close();
    master.close();
  }
}
