package io.strata.worker;

import io.grpc.Server;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.util.internal.PlatformDependent;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.DirectMemoryFit;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.metrics.Metrics;
import io.strata.core.metrics.WebServer;
import io.strata.core.net.ConnectionGate;
import io.strata.core.net.NettyTransport;
import io.strata.core.path.StrataPath;
import io.strata.core.process.ProcessConf;
import io.strata.core.process.ProcessMain;
import io.strata.core.process.Service;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerUsage;
import io.strata.core.rpc.AuditInterceptor;
import io.strata.core.rpc.GrpcServers;
import io.strata.core.rpc.MasterClient;
import io.strata.core.rpc.RpcMetricsInterceptor;
import io.strata.core.security.Security;
import io.strata.core.ufs.ActingUnderFileSystem;
import io.strata.core.ufs.LocalUnderFileSystem;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Periodic;
import io.strata.worker.auth.CallerIdentity;
import io.strata.worker.auth.Permissions;
import io.strata.worker.data.DataServer;
import io.strata.worker.data.DataServerMetrics;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.load.FileLoader;
import io.strata.worker.master.MasterSync;
import io.strata.worker.meta.MetadataCache;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.meta.MetadataWatchers;
import io.strata.worker.meta.VisibleEvents;
import io.strata.worker.namespace.Namespace;
import io.strata.worker.page.CachedVersions;
import io.strata.worker.page.PageStore;
import io.strata.worker.policy.CachePolicies;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.rpc.MetadataWatchServiceImpl;
import io.strata.worker.rpc.WorkerServiceImpl;
import io.strata.worker.rpc.WriteSessions;
import io.strata.worker.ufs.PageBuffers;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Path;
import java.time.Duration;
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
 * A worker: page store, metadata cache, data server, gRPC service, master sync and web port, wired
 * together. This is the composition root; components get their executors, allocator and meter
 * registry from here.
 */
public final class WorkerProcess implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerProcess.class);

  private final Configuration conf;
  private final Security security;
  private final PrometheusMeterRegistry registry = Metrics.newProcessRegistry("worker");
  private final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
  private final NettyTransport transport = NettyTransport.best();
  private final EventLoopGroup boss = transport.newGroup(1, DaemonThreads.factory("data-accept"));
  private final EventLoopGroup eventLoops;
  private final ExecutorService ufsExecutor;
  private final ExecutorService loadExecutor;
  private final ExecutorService limitedLoadExecutor;
  private final FileLoader loader;
  private final ExecutorService rpcExecutor;
  private final ExecutorService webExecutor =
      Executors.newFixedThreadPool(2, DaemonThreads.factory("worker-web"));

  /** How often whole files sealed since are made durable, and one of them is scrubbed. */
  private static final java.time.Duration WHOLE_FILE_UPKEEP = java.time.Duration.ofSeconds(5);

  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("worker-heartbeat"));
  private final UfsManager ufs;
  private final PageStore store;
  private static final long METADATA_BLOCK_CACHE = 64 << 20;

  private final KvStore metadataStore;
  private final AtomicLong appliedConfVersion = new AtomicLong();
  private final PageFetcher fetcher;
  private final CachePolicies policies;
  private final MetadataService metadata;
  private final Permissions access;
  private final MasterClient masterClient;
  private DataServer dataServer;
  private Server rpcServer;
  private WebServer webServer;
  private MasterSync masterSync;
  private volatile boolean closed;

  public WorkerProcess(Configuration conf) {
    this.conf = conf;
    // First: a worker that would serve the network unauthenticated does not start at all.
    this.security = Security.forServer(conf, List.of(WorkerKeys.BIND_HOST));
    DirectMemoryFit.require(conf.get(WorkerKeys.MEM_SIZE), PlatformDependent.maxDirectMemory());
    Duration tempMaxAge = conf.get(WorkerKeys.UFS_TEMP_MAX_AGE);
    this.access =
        Permissions.of(
            this::cachedStatus,
            () -> conf.get(SecurityKeys.PERMISSION_CHECK),
            () -> conf.get(SecurityKeys.SUPERUSER_GROUP));
    CallerIdentity caller = new CallerIdentity(access);
    this.ufs =
        new UfsManager(
            m -> {
              UnderFileSystem store = UfsFactory.open(m.ufsUri(), m.options(), tempMaxAge);
              // A user's calls on a local folder act as that user: the kernel checks what opens.
              return store instanceof LocalUnderFileSystem
                  ? new ActingUnderFileSystem(store, caller)
                  : store;
            });
    this.eventLoops =
        transport.newGroup(
            dataIoThreads(conf.get(WorkerKeys.DATA_IO_THREADS)), DaemonThreads.factory("data-io"));
    this.ufsExecutor =
        Executors.newFixedThreadPool(
            conf.get(WorkerKeys.DATA_READER_THREADS), DaemonThreads.factory("ufs-reader"));
    this.rpcExecutor =
        Executors.newFixedThreadPool(
            conf.get(WorkerKeys.RPC_THREADS), DaemonThreads.factory("worker-rpc"));
    this.loadExecutor =
        Executors.newFixedThreadPool(
            conf.get(WorkerKeys.LOAD_THREADS), DaemonThreads.factory("loader"));
    this.limitedLoadExecutor =
        Executors.newFixedThreadPool(
            conf.get(WorkerKeys.LOAD_THREADS), DaemonThreads.factory("loader-limited"));
    long pageSize = conf.get(WorkerKeys.PAGE_SIZE);
    try {
      this.store = PageStore.create(conf, allocator, registry, System::nanoTime);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot open the page store: " + e.getMessage(), e);
    }
    // Pages read from under-storages are written to a tier and released, again and again; those the
    // memory tier keeps come back when it evicts them or drops them all.
    PageBuffers pageBuffers = new PageBuffers(allocator, pageSize, store::memoryRoom);
    this.fetcher =
        new PageFetcher(
            store,
            pageSize,
            ufsExecutor,
            pageBuffers,
            registry,
            () -> conf.get(WorkerKeys.UFS_READ_AHEAD),
            () -> conf.get(WorkerKeys.UFS_READ_RUN));
    this.policies =
        new CachePolicies(
            ufs,
            store,
            fetcher,
            () -> conf.get(WorkerKeys.PIN_CAPACITY_PERCENT),
            System::currentTimeMillis);
    this.metadataStore =
        RocksKvStore.openWithTtl(
            Path.of(conf.get(WorkerKeys.STATE_FOLDER)).resolve("metadata"),
            METADATA_BLOCK_CACHE,
            (int) Math.min(Integer.MAX_VALUE, conf.get(WorkerKeys.METADATA_TTL).toSeconds()));
    MetadataCache metadataCache =
        new MetadataCache(
            conf.get(WorkerKeys.METADATA_MAX_ENTRIES),
            conf.get(WorkerKeys.METADATA_TTL),
            conf.get(WorkerKeys.METADATA_NEGATIVE_TTL),
            System::currentTimeMillis,
            metadataStore);
    this.metadata = new MetadataService(ufs, metadataCache, registry);
    fetcher.whenFileChanges(metadata::invalidate);
    metadata
        .watchers()
        .showOnly(
            new VisibleEvents(
                metadata,
                () -> conf.get(SecurityKeys.PERMISSION_CHECK),
                () -> conf.get(SecurityKeys.SUPERUSER_GROUP)));
    this.loader =
        new FileLoader(
            ufs,
            store,
            pageSize,
            pageBuffers,
            loadExecutor,
            limitedLoadExecutor,
            registry,
            () -> conf.get(WorkerKeys.UFS_READ_RUN));
    loader.setThrottle(conf.get(WorkerKeys.LOAD_BANDWIDTH));
    followDynamicKeys();
    this.masterClient = new MasterClient(conf, security.credentials());
  }

  /** Keys whose new values must reach components that hold them. */
  private void followDynamicKeys() {
    conf.onChange(
        WorkerKeys.METADATA_TTL,
        ttl -> metadata.setTtl(ttl, conf.get(WorkerKeys.METADATA_NEGATIVE_TTL)));
    conf.onChange(
        WorkerKeys.METADATA_NEGATIVE_TTL,
        ttl -> metadata.setTtl(conf.get(WorkerKeys.METADATA_TTL), ttl));
    conf.onChange(
        WorkerKeys.MEM_SIZE,
        size -> {
          long limit = PlatformDependent.maxDirectMemory();
          if (DirectMemoryFit.fits(size, limit)) {
            store.setMemoryCapacity(size);
          } else {
            LOG.warn("not applied: {}", DirectMemoryFit.why(size, limit));
          }
        });
    conf.onChange(WorkerKeys.LOAD_BANDWIDTH, loader::setThrottle);
    ProcessConf.register(conf, registry, appliedConfVersion);
  }

  /** A path's status as the worker holds it: what permission checks read. */
  private FileStatus cachedStatus(StrataPath path) {
    return metadata.getStatus(path, -1);
  }

  public static void main(String[] args) {
    ProcessMain.run("worker", args, WorkerProcess::new);
  }

  @Override
  public void start() throws Exception {
    String bindHost = conf.get(WorkerKeys.BIND_HOST);
    dataServer =
        new DataServer(
            transport,
            boss,
            eventLoops,
            ufs,
            fetcher,
            metadata,
            ufsExecutor,
            new DataServerMetrics(registry),
            Math.toIntExact(conf.get(WorkerKeys.DATA_SEND_BUFFER)),
            ConnectionGate.Limits.of(
                conf.get(WorkerKeys.DATA_MAX_CONNECTIONS),
                conf.get(CommonKeys.MAX_CONNECTIONS_PER_USER),
                conf.get(CommonKeys.UNAUTHENTICATED_PER_SOURCE)),
            conf.get(WorkerKeys.DATA_IDLE_TIMEOUT),
            security,
            access,
            () ->
                Math.max(
                    1,
                    store.capacityBytes()
                        / conf.get(WorkerKeys.SEGMENT_SIZE)
                        * conf.get(WorkerKeys.LEASE_MAX_PERCENT)
                        / 100),
            loader::keepWhole);
    dataServer.listenTcp(bindHost, conf.get(WorkerKeys.DATA_PORT));
    String socket = conf.get(WorkerKeys.DOMAIN_SOCKET);
    if (!socket.isEmpty()) {
      dataServer.listenDomainSocket(Path.of(socket).toAbsolutePath());
    }
    WriteSessions writes =
        new WriteSessions(
            ufs,
            metadata,
            store,
            conf.get(WorkerKeys.PAGE_SIZE),
            allocator,
            () -> conf.get(WorkerKeys.UFS_WRITE_SYNC),
            Path.of(conf.get(WorkerKeys.STATE_FOLDER)));
    ufs.onUnmount(this::dropCacheOf);
    ufs.onFirstTable(
        () -> {
          int discarded = writes.discardUnfinished();
          if (discarded > 0) {
            LOG.info(
                "removed what {} writes cut short by the last stop left in the under-storage",
                discarded);
          }
        });
    rpcServer =
        GrpcServers.start(
            bindHost,
            conf.get(WorkerKeys.RPC_PORT),
            rpcExecutor,
            List.of(
                new WorkerServiceImpl(
                    new Namespace(ufs, metadata, fetcher, access), writes, loader),
                new MetadataWatchServiceImpl(metadata.watchers())),
            security,
            new RpcMetricsInterceptor(registry, System::nanoTime),
            new AuditInterceptor(conf),
            GrpcServers.limits(conf));
    webServer =
        new WebServer(
            bindHost,
            conf.get(WorkerKeys.WEB_PORT),
            registry,
            this::notReadyReason,
            webExecutor,
            security);
    WorkerAddress address =
        WorkerAddress.newBuilder()
            .setHost(conf.get(WorkerKeys.HOSTNAME))
            .setRpcPort(rpcServer.getPort())
            .setDataPort(dataServer.tcpPort())
            .setWebPort(webServer.port())
            .setDomainSocketPath(
                socket.isEmpty() ? "" : Path.of(socket).toAbsolutePath().toString())
            .addAllWholeFileDirs(
                store.wholeFiles().folders().stream()
                    .map(d -> d.toAbsolutePath().toString())
                    .toList())
            .setPageSize(conf.get(WorkerKeys.PAGE_SIZE))
            .setWholeFileMinSize(conf.get(WorkerKeys.WHOLE_FILE_MIN_SIZE))
            .build();
    masterSync =
        new MasterSync(
            masterClient,
            address,
            this::usage,
            ufs,
            policies,
            conf.get(UserKeys.RPC_TIMEOUT),
            conf,
            appliedConfVersion);
    Periodic.every(
        scheduler,
        "master sync",
        0,
        conf.get(WorkerKeys.HEARTBEAT_INTERVAL).toMillis(),
        TimeUnit.MILLISECONDS,
        masterSync);
    long check = conf.get(WorkerKeys.POLICY_CHECK_INTERVAL).toMillis();
    Periodic.every(
        scheduler, "pins and TTLs", check, check, TimeUnit.MILLISECONDS, policies::check);
    store.wholeFiles().startUpkeep(WHOLE_FILE_UPKEEP);
    long beat = MetadataWatchers.HEARTBEAT.toMillis();
    Periodic.every(
        scheduler,
        "metadata watch heartbeat",
        beat,
        beat,
        TimeUnit.MILLISECONDS,
        metadata.watchers()::heartbeat);
  }

  /** A mount went: what this worker cached of it, metadata and pages of every version. */
  private void dropCacheOf(Mount mount) {
    int files = metadata.forgetUfs(mount.ufsUri()).size();
    List<CachedVersions.Version> versions = store.versions().under(mount.ufsUri());
    long bytes = fetcher.files().free(versions);
    store.versions().forget(versions);
    LOG.info(
        "dropped {} statuses and {} bytes of pages ({} file versions) of {}",
        files,
        bytes,
        versions.size(),
        mount);
  }

  private WorkerUsage usage() {
    CachePolicies.PinUsage pins = policies.usage();
    return WorkerUsage.newBuilder()
        .setPinnedBytes(pins.pinnedBytes())
        .setPinCapacityBytes(pins.capacityBytes())
        .setPinnedOverCapacityBytes(pins.overCapacityBytes())
        .setCapacityBytes(store.capacityBytes())
        .setUsedBytes(store.usedBytes())
        .setPagesCached(store.pageCount())
        .addAllTiers(store.tiers())
        .setMaxDirectMemoryBytes(PlatformDependent.maxDirectMemory())
        .build();
  }

  @Override
  public Optional<String> notReadyReason() {
    if (closed) {
      return Optional.of("stopped");
    }
    if (masterSync == null || !masterSync.registered()) {
      return Optional.of("not registered with the master yet");
    }
    return Optional.empty();
  }

  @Override
  public String describe() {
    return "worker "
        + conf.get(WorkerKeys.HOSTNAME)
        + ":"
        + rpcPort()
        + ", data "
        + dataPort()
        + ", web "
        + webPort();
  }

  public int rpcPort() {
    return rpcServer.getPort();
  }

  public int dataPort() {
    return dataServer.tcpPort();
  }

  public int webPort() {
    return webServer.port();
  }

  /** The distributedLoad executor of this worker. */
  public FileLoader loader() {
    return loader;
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
    // Watches never end on their own: a graceful stop of the server would wait for them.
    metadata.watchers().close();
    GrpcServers.stop(rpcServer);
    if (dataServer != null) {
      dataServer.close();
    }
    if (webServer != null) {
      webServer.close();
    }
    eventLoops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    ufsExecutor.shutdownNow();
    loadExecutor.shutdownNow();
    limitedLoadExecutor.shutdownNow();
    rpcExecutor.shutdownNow();
    webExecutor.shutdownNow();
    masterClient.close();
    store.close();
    metadataStore.close();
    ufs.close();
    registry.close();
  }

  /** strata.worker.data.io.threads, 0 read as twice the processors (at least 4). */
  private static int dataIoThreads(int configured) {
    return configured > 0
        ? configured
        : Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
  }
}
