package io.strata.core.rpc;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.net.ConnectionGate;
import io.strata.core.security.Security;
import io.strata.core.security.Tls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and stops the gRPC servers of masters and workers, with limits that keep one peer from
 * taking a server from the others: connections open at once, per user and not yet proved, per
 * source ({@link ConnectionGate}), calls at once per connection (more wait in the client, as HTTP/2
 * streams do), an idle connection's life and a TLS handshake's time. The servers of a process share
 * one pair of event loop groups, made with the first server and shut down with the last (gRPC's own
 * default groups cannot take the capped channel).
 */
public final class GrpcServers {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcServers.class);

  /** How long a connection has to prove a token or the secret (its first call must). */
  static final Duration PROOF_DEADLINE = Duration.ofSeconds(10);

  /** Far above what one FUSE mount or client sends at once. */
  static final int MAX_CALLS_PER_CONNECTION = 1024;

  /** Clients reconnect at their next call, transparently. */
  static final Duration MAX_IDLE = Duration.ofMinutes(10);

  static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  /** A port's limits from {@code conf} ({@code strata.rpc.*}). */
  public static ConnectionGate.Limits limits(Configuration conf) {
    return ConnectionGate.Limits.of(
        conf.get(CommonKeys.RPC_MAX_CONNECTIONS),
        conf.get(CommonKeys.MAX_CONNECTIONS_PER_USER),
        conf.get(CommonKeys.UNAUTHENTICATED_PER_SOURCE));
  }

  private static EventLoopGroup boss;
  private static EventLoopGroup workers;
  private static int running;

  private GrpcServers() {}

  /**
   * Starts a server, over TLS if {@code security} has it; every call is authenticated and
   * authorised first (by {@code security}'s rules, refusals audited), then passes the metrics
   * interceptor and the audit log.
   */
  public static Server start(
      String bindHost,
      int port,
      Executor executor,
      List<BindableService> services,
      Security security,
      RpcMetricsInterceptor metrics,
      AuditInterceptor audit,
      ConnectionGate.Limits limits)
      throws IOException {
    return start(
        bindHost, port, executor, services, security, metrics, audit, limits, PROOF_DEADLINE);
  }

  static Server start(
      String bindHost,
      int port,
      Executor executor,
      List<BindableService> services,
      Security security,
      RpcMetricsInterceptor metrics,
      AuditInterceptor audit,
      ConnectionGate.Limits limits,
      Duration proofDeadline)
      throws IOException {
    GatedConnections connections = new GatedConnections(new ConnectionGate(limits));
    AuthInterceptor auth = new AuthInterceptor(security, audit, connections);
    Refusals refusals = new Refusals(port);
    acquireGroups();
    try {
      NettyServerBuilder b =
          NettyServerBuilder.forAddress(
                  new InetSocketAddress(bindHost, port),
                  security.tls().map(Tls::grpcServer).orElseGet(InsecureServerCredentials::create))
              .bossEventLoopGroup(boss)
              .workerEventLoopGroup(workers)
              .channelFactory(
                  () -> new CappedServerChannel(connections, proofDeadline, refusals::refused))
              .executor(executor)
              .maxInboundMessageSize(Channels.MAX_MESSAGE)
              .maxConcurrentCallsPerConnection(MAX_CALLS_PER_CONNECTION)
              .maxConnectionIdle(MAX_IDLE.toMillis(), TimeUnit.MILLISECONDS)
              .handshakeTimeout(HANDSHAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      for (BindableService s : services) {
        b.addService(ServerInterceptors.intercept(s, audit, metrics, auth));
      }
      return b.build().start();
    } catch (IOException | RuntimeException e) {
      releaseGroups();
      throw e;
    }
  }

  public static void stop(Server server) {
    if (server == null) {
      return;
    }
    try {
      shutdown(server);
    } finally {
      releaseGroups();
    }
  }

  private static void shutdown(Server server) {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }

  /** Logs refused connections at most once a minute, with how many since. */
  private static final class Refusals {
    private static final long EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private final int port;
    private final AtomicInteger since = new AtomicInteger();
    private final AtomicLong lastNanos = new AtomicLong(System.nanoTime() - EVERY_NANOS);

    Refusals(int port) {
      this.port = port;
    }

    void refused(int max) {
      int n = since.incrementAndGet();
      long last = lastNanos.get();
      long now = System.nanoTime();
      if (now - last >= EVERY_NANOS && lastNanos.compareAndSet(last, now)) {
        since.addAndGet(-n);
        LOG.warn(
            "the RPC port {} refused {} connection(s) in the last minute: {} are open, its most",
            port,
            n,
            max);
      }
    }
  }

  private static synchronized void acquireGroups() {
    if (running++ == 0) {
      boss =
          new MultiThreadIoEventLoopGroup(
              1, new DefaultThreadFactory("strata-rpc-boss", true), NioIoHandler.newFactory());
      workers =
          new MultiThreadIoEventLoopGroup(
              0, new DefaultThreadFactory("strata-rpc-server", true), NioIoHandler.newFactory());
    }
  }

  private static void releaseGroups() {
    EventLoopGroup lastBoss;
    EventLoopGroup lastWorkers;
    synchronized (GrpcServers.class) {
      if (running == 0 || --running > 0) {
        return;
      }
      lastBoss = boss;
      lastWorkers = workers;
      boss = null;
      workers = null;
    }
    lastBoss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    lastWorkers
        .shutdownGracefully(0, 1, TimeUnit.SECONDS)
        .awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
