package io.strata.master;

import io.grpc.Server;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.core.conf.ClusterConf;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.metrics.Metrics;
import io.strata.core.metrics.WebServer;
import io.strata.core.path.StrataPath;
import io.strata.core.process.ProcessConf;
import io.strata.core.process.ProcessMain;
import io.strata.core.process.Service;
import io.strata.core.proto.WorkerState;
import io.strata.core.rpc.AuditInterceptor;
import io.strata.core.rpc.GrpcServers;
import io.strata.core.rpc.RpcMetricsInterceptor;
import io.strata.core.security.Security;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Periodic;
import io.strata.master.journal.MasterJournal;
import io.strata.master.journal.MasterPeers;
import io.strata.master.journal.MasterStateMachine;
import io.strata.master.journal.RaftSettings;
import io.strata.master.journal.RaftTls;
import io.strata.master.load.LoadControl;
import io.strata.master.load.LoadScheduler;
import io.strata.master.load.PathAccess;
import io.strata.master.load.WorkerStubs;
import io.strata.master.service.LeaderDuties;
import io.strata.master.service.MasterServiceImpl;
import io.strata.master.service.PeerAgreement;
import io.strata.master.service.PeerClients;
import io.strata.master.service.Quorum;
import io.strata.master.service.WorkerLiveness;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
  private final Runnable onRemoved;
  private MasterJournal journal;
  private final WorkerLiveness liveness = new WorkerLiveness(System::nanoTime);
  private final Security security;
  private final PeerClients peerClients;
  private final WorkerStubs workerStubs;
  private LoadScheduler loads;
  private Quorum quorum;
  private volatile boolean joining;
  private final AtomicLong appliedConfVersion = new AtomicLong();
  private final ExecutorService rpcExecutor =
      Executors.newFixedThreadPool(RPC_THREADS, DaemonThreads.factory("master-rpc"));
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("master-duties"));
  private final ExecutorService webExecutor =
      Executors.newFixedThreadPool(2, DaemonThreads.factory("master-web"));
  private Server rpcServer;
  private WebServer webServer;
  private volatile boolean closed;

  public MasterProcess(Configuration conf) {
    this(conf, null);
  }

  /**
   * @param onRemoved what to do when this master finds itself removed from the group (its Raft
   *     server stopped); by default the process closes itself
   */
  public MasterProcess(Configuration conf, Runnable onRemoved) {
    this.conf = conf;
    // First: a master that would serve the network unauthenticated does not start at all.
    this.security = Security.forServer(conf, List.of(MasterKeys.BIND_HOST));
    RaftSettings.requireAuthenticatedRaft(conf, security);
    this.peerClients = new PeerClients(security.credentials());
    this.workerStubs =
        new WorkerStubs(security.credentials(), security.secret(), Clock.systemUTC());
    this.peers = MasterPeers.fromConf(conf);
    this.onRemoved = onRemoved != null ? onRemoved : this::close;
  }

  public static void main(String[] args) {
    ProcessMain.run(
        "master",
        args,
        conf ->
            new MasterProcess(
                conf,
                () -> {
                  LOG.error(
                      "this master is no longer a member of the master group (removed?); stopping. To bring it back: "
                          + "strata format -y, start it again, then fsadmin journal quorum add");
                  new Thread(() -> System.exit(3), "master-exit").start();
                }));
  }

  @Override
  public void start() throws IOException {
    Optional<List<String>> running = PeerAgreement.verify(peers, peerClients);
    List<MasterPeers.Peer> group = peers.peers();
    if (!MasterJournal.hasJournal(Path.of(conf.get(MasterKeys.JOURNAL_FOLDER)))
        && running.isPresent()
        && !running.get().contains(peers.own().describe())) {
      group = running.get().stream().map(MasterPeers::parse).toList();
      joining = true;
      LOG.info(
          "joining the running master group {}; waiting until it adds this master "
              + "(fsadmin journal quorum add --address {})",
          running.get(),
          peers.own().rpc());
    }
    stateMachine.observeConf(
        view -> {
          ClusterConf.apply(conf, view.getOverridesMap(), view.getVersion());
          appliedConfVersion.set(view.getVersion());
        });
    journal = new MasterJournal(conf, peers, group, stateMachine, RaftTls.of(conf, security));
    quorum = new Quorum(journal, peerClients, clock.millis());
    journal.start();
    String bindHost = conf.get(MasterKeys.BIND_HOST);
    int virtualNodes = conf.get(CommonKeys.RING_VIRTUAL_NODES);
    loads = new LoadScheduler(journal, workerStubs, virtualNodes, clock, System::nanoTime);
    PathAccess pathAccess = new PathAccess(journal, workerStubs, virtualNodes);
    LoadControl loadControl =
        new LoadControl(journal, workerStubs, loads, virtualNodes, pathAccess, clock);
    rpcServer =
        GrpcServers.start(
            bindHost,
            conf.get(CommonKeys.MASTER_RPC_PORT),
            rpcExecutor,
            List.of(
                new MasterServiceImpl(
                    journal, liveness, quorum, loadControl, pathAccess, clock, conf, security)),
            security,
            new RpcMetricsInterceptor(registry, System::nanoTime),
            new AuditInterceptor(conf),
            GrpcServers.limits(conf));
    Mount root =
        new Mount(StrataPath.ROOT, UfsFactory.normalize(conf.get(MasterKeys.ROOT_UFS)), false);
    Periodic.every(
        scheduler,
        "leader duties",
        0,
        DUTY_INTERVAL_MS,
        TimeUnit.MILLISECONDS,
        new LeaderDuties(
            journal, liveness, root, () -> conf.get(MasterKeys.WORKER_TIMEOUT), loads, clock));
    Periodic.every(scheduler, "membership check", 1, 1, TimeUnit.SECONDS, this::checkMembership);
    registerGauges();
    Gauge.builder(MasterMetrics.LOAD_OPEN_FILES, loads, LoadScheduler::openFiles)
        .description("Files load jobs have handed to workers and not yet seen finish")
        .register(registry);
    webServer =
        new WebServer(
            bindHost,
            conf.get(MasterKeys.WEB_PORT),
            registry,
            this::notReadyReason,
            webExecutor,
            security);
  }

  private void registerGauges() {
    Gauge.builder(
            MasterMetrics.WORKERS,
            stateMachine,
            sm ->
                sm.read(
                    s ->
                        s.membership().all().stream()
                            .filter(w -> w.getState() == WorkerState.LIVE)
                            .count()))
        .tag("state", "LIVE")
        .description("Workers in the cluster, by state")
        .register(registry);
    Gauge.builder(
            MasterMetrics.WORKERS,
            stateMachine,
            sm ->
                sm.read(
                    s ->
                        s.membership().all().stream()
                            .filter(w -> w.getState() == WorkerState.LOST)
                            .count()))
        .tag("state", "LOST")
        .description("Workers in the cluster, by state")
        .register(registry);
    Gauge.builder(MasterMetrics.IS_LEADER, journal, j -> j.isLeader() ? 1 : 0)
        .description("1 on the leader of the master group")
        .register(registry);
    ProcessConf.register(conf, registry, appliedConfVersion);
  }

  private void checkMembership() {
    if (!closed && !journal.isAlive()) {
      onRemoved.run();
    }
  }

  @Override
  public Optional<String> notReadyReason() {
    if (closed) {
      return Optional.of("stopped");
    }
    if (journal == null) {
      return Optional.of("starting");
    }
    if (joining && journal.leaderRpcAddress().isEmpty()) {
      return Optional.empty();
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
    return (joining ? "joining the group (add it with fsadmin journal quorum add), " : "")
        + "rpc "
        + peers.own().rpc().host()
        + ":"
        + rpcPort()
        + ", journal "
        + peers.own().journal()
        + ", web "
        + webPort();
  }

  public int rpcPort() {
    return rpcServer.getPort();
  }

  public int webPort() {
    return webServer.port();
  }

  public Path journalFolder() {
    return Path.of(conf.get(MasterKeys.JOURNAL_FOLDER));
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
    if (loads != null) {
      loads.close();
    }
    GrpcServers.stop(rpcServer);
    if (webServer != null) {
      webServer.close();
    }
    try {
      if (journal != null) {
        journal.close();
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("closing the journal failed", e);
    }
    peerClients.close();
    workerStubs.close();
    rpcExecutor.shutdownNow();
    webExecutor.shutdownNow();
    registry.close();
  }
}
