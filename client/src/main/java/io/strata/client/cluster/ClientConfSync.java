package io.strata.client.cluster;

import io.strata.core.conf.ClusterConf;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Periodic;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a client's configuration in step with the cluster's overrides. Every cluster view carries
 * the hash of the overrides; when it differs from what this client applied, the client fetches and
 * applies them. Once started, a daemon thread fetches a view every strata.user.conf.sync.interval
 * (none if it is 0), so even an idle long-running client (FUSE) follows changes. Thread-safe.
 */
public final class ClientConfSync implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientConfSync.class);

  private final Configuration conf;
  private final MasterClient master;
  private volatile String appliedHash = ClusterConf.hash(Map.of());
  private volatile long appliedVersion;
  private ScheduledExecutorService timer;

  public ClientConfSync(Configuration conf, MasterClient master) {
    this.conf = conf;
    this.master = master;
  }

  /** Applies the cluster's overrides if {@code view} says they changed. */
  public void onView(ClusterView view) {
    if (!view.getConfHash().isEmpty() && !view.getConfHash().equals(appliedHash)) {
      ConfigView c =
          master.call("getConfig", stub -> stub.getConfig(GetConfigRequest.getDefaultInstance()));
      apply(c);
    }
  }

  private synchronized void apply(ConfigView c) {
    if (c.getHash().equals(appliedHash)) {
      return;
    }
    ClusterConf.apply(conf, c.getOverridesMap(), c.getVersion());
    appliedHash = c.getHash();
    appliedVersion = c.getVersion();
    LOG.debug("applied cluster configuration version {}", c.getVersion());
  }

  /**
   * Starts the periodic check (once; never with an interval of 0); {@code refresh} fetches a view,
   * which calls {@link #onView}.
   */
  public synchronized void start(Runnable refresh) {
    long ms = conf.get(UserKeys.CONF_SYNC_INTERVAL).toMillis();
    if (timer != null || ms == 0) {
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("client-conf-sync"));
    Periodic.every(
        timer,
        "configuration sync",
        ms,
        ms,
        TimeUnit.MILLISECONDS,
        () -> {
          try {
            refresh.run();
          } catch (StrataException e) {
            LOG.debug("configuration sync failed: {}", e.oneLine());
          }
        });
  }

  public long appliedVersion() {
    return appliedVersion;
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
