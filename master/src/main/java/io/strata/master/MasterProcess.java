package io.strata.master;

import io.grpc.Server;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.metrics.Metrics;
import io.strata.core.metrics.WebServer;
import io.strata.core.path.StrataPath;
import io.strata.core.process.ProcessMain;
import io.strata.core.process.Service;
import io.strata.core.proto.WorkerState;
import io.strata.core.rpc.GrpcServers;
import io.strata.core.rpc.RpcMetricsInterceptor;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.util.DaemonThreads;
import io.strata.master.journal.MasterJournal;
import io.strata.master.journal.MasterPeers;
import io.strata.master.journal.MasterStateMachine;
import io.strata.master.service.LeaderDuties;
import io.strata.master.service.MasterServiceImpl;
import io.strata.master.service.WorkerLiveness;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A master: its Raft journal, its gRPC service and its web port, wired together. This is the
 * composition root; components get their clock, executors and meter registry from here.
 */
public final class MasterProcess implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(MasterProcess.class);
  private static final long DUTY_INTERVAL_MS = 200;
  private static final int RPC_THREADS = 8;

  private final Configuration conf;
  private final Clock clock = Clock.systemUTC();
  private final PrometheusMeterRegistry registry = Metrics.newProcessRegistry("master");
  private final MasterPeers peers;
  private final MasterStateMachine stateMachine = new MasterStateMachine();
  private final MasterJournal journal;
  private final WorkerLiveness liveness = new WorkerLiveness(System::nanoTime);
  private final ExecutorService rpcExecutor = Executors.newFixedThreadPool(RPC_THREADS, DaemonThreads.factory("master-rpc"));
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("master-duties"));
  private final ExecutorService webExecutor = Executors.newFixedThreadPool(2, DaemonThreads.factory("master-web"));
  private Server rpcServer;
  private WebServer webServer;
  private volatile boolean closed;

  public MasterProcess(Configuration conf) {
    this.conf = conf;
    this.peers = MasterPeers.fromConf(conf);
    try {
      this.journal = new MasterJournal(conf, peers, stateMachine);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create the master journal", e);
    }
  }

  public static void main(String[] args) {
    ProcessMain.run("master", args, MasterProcess::new);
  }

  @Override
  public void start() throws IOException {
    journal.start();
    String bindHost = conf.get(MasterKeys.BIND_HOST);
    rpcServer = GrpcServers.start(bindHost, conf.get(CommonKeys.MASTER_RPC_PORT), rpcExecutor,
        List.of(new MasterServiceImpl(journal, liveness, clock)), new RpcMetricsInterceptor(registry, System::nanoTime));
    Mount root = new Mount(StrataPath.ROOT, UfsFactory.normalize(conf.get(MasterKeys.ROOT_UFS)), false);
    scheduler.scheduleWithFixedDelay(new LeaderDuties(journal, liveness, root, conf.get(MasterKeys.WORKER_TIMEOUT), clock),
        0, DUTY_INTERVAL_MS, TimeUnit.MILLISECONDS);
    registerGauges();
    webServer = new WebServer(bindHost, conf.get(MasterKeys.WEB_PORT), registry, this::notReadyReason, webExecutor);
  }

  private void registerGauges() {
    Gauge.builder(MasterMetrics.WORKERS, stateMachine, sm -> sm.read(s -> s.membership().all().stream()
            .filter(w -> w.getState() == WorkerState.LIVE).count()))
        .tag("state", "LIVE").description("Workers in the cluster, by state").register(registry);
    Gauge.builder(MasterMetrics.WORKERS, stateMachine, sm -> sm.read(s -> s.membership().all().stream()
            .filter(w -> w.getState() == WorkerState.LOST).count()))
        .tag("state", "LOST").description("Workers in the cluster, by state").register(registry);
    Gauge.builder(MasterMetrics.IS_LEADER, journal, j -> j.isLeader() ? 1 : 0)
        .description("1 on the leader of the master group").register(registry);
  }

  @Override
  public Optional<String> notReadyReason() {
    if (closed) {
      return Optional.of("stopped");
    }
    if (journal.leaderRpcAddress().isEmpty()) {
      return Optional.of("the master group has no leader yet");
    }
    if (!stateMachine.read(s -> s.mounts().hasRoot())) {
      return Optional.of("the root is not mounted yet");
    }
    return Optional.empty();
  }

  @Override
  public String describe() {
    return "rpc " + peers.own().rpc().host() + ":" + rpcPort() + ", journal " + peers.own().journal()
        + ", web " + webPort();
  }

  public int rpcPort() {
    return rpcServer.getPort();
  }

  public int webPort() {
    return webServer.port();
  }

  public MasterJournal journal() {
    return journal;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    scheduler.shutdownNow();
    GrpcServers.stop(rpcServer);
    if (webServer != null) {
      webServer.close();
    }
    try {
      journal.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("closing the journal failed", e);
    }
    rpcExecutor.shutdownNow();
    webExecutor.shutdownNow();
    registry.close();
  }
}
