package io.strata.worker.data;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.unix.DomainSocketAddress;
import io.strata.core.net.ConnectionGate;
import io.strata.core.net.NettyTransport;
import io.strata.core.security.Security;
import io.strata.core.util.OwnerOnly;
import io.strata.worker.auth.Permissions;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * The worker's data server: Netty on TCP, and on a Unix domain socket when a path is given; epoll
 * where available. One pipeline ({@link DataServerInitializer}) serves both.
 */
public final class DataServer implements AutoCloseable {
  private final NettyTransport transport;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final List<Channel> listening = new ArrayList<>();
  private final DataServerInitializer initializer;
  private final LeaseDesk leases;
  private final int sendBuffer;
  private int tcpPort = -1;
  private Path socketFile;

  public DataServer(
      NettyTransport transport,
      EventLoopGroup boss,
      EventLoopGroup workers,
      UfsManager ufs,
      PageFetcher fetcher,
      MetadataService metadata,
      Executor metadataExecutor,
      DataServerMetrics metrics,
      int sendBuffer,
      ConnectionGate.Limits connections,
      java.time.Duration idleTimeout,
      Security security,
      Permissions access,
      LongSupplier maxLeaseSegmentsPerUser,
      WholeKeeper keeper) {
    this.transport = transport;
    this.sendBuffer = sendBuffer;
    this.boss = boss;
    this.workers = workers;
    this.leases = new LeaseDesk(fetcher, System::nanoTime, maxLeaseSegmentsPerUser);
    ReadHandler.Responders responders =
        ReadHandler.Responders.of(
            ufs,
            fetcher,
            metadata,
            metadataExecutor,
            leases,
            metrics,
            System::nanoTime,
            access,
            keeper);
    this.initializer =
        new DataServerInitializer(
            () -> new ReadHandler(responders),
            metrics,
            new DataServerInitializer.Limits(connections, idleTimeout, security));
  }

  public void listenTcp(String bindHost, int port) throws InterruptedException {
    Channel ch = bootstrap(false).bind(new InetSocketAddress(bindHost, port)).sync().channel();
    listening.add(ch);
    tcpPort = ((InetSocketAddress) ch.localAddress()).getPort();
  }

  public void listenDomainSocket(Path path) throws Exception {
    Files.deleteIfExists(path);
    Files.createDirectories(path.toAbsolutePath().getParent());
    java.net.SocketAddress address =
        transport == NettyTransport.EPOLL
            ? new DomainSocketAddress(path.toFile())
            : java.net.UnixDomainSocketAddress.of(path);
    listening.add(bootstrap(true).bind(address).sync().channel());
    // Connecting takes write permission on the socket: only the worker's own user may.
    OwnerOnly.file(path);
    socketFile = path;
  }

  private ServerBootstrap bootstrap(boolean domainSocket) {
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(transport.serverChannel(domainSocket))
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 8 << 20))
            .childHandler(initializer);
    return sendBuffer > 0 ? b.childOption(ChannelOption.SO_SNDBUF, sendBuffer) : b;
  }

  public int tcpPort() {
    return tcpPort;
  }

  @Override
  public void close() {
    for (Channel ch : listening) {
      ch.close().syncUninterruptibly();
    }
    listening.clear();
    leases.close();
    if (socketFile != null) {
      try {
        Files.deleteIfExists(socketFile);
      } catch (java.io.IOException ignored) {
        // A stale socket file is replaced at the next start.
      }
    }
  }
}
