package io.strata.s3;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.strata.core.net.ConnectionGate;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The endpoint's listening socket: HTTP/1.1 with keep-alive on Netty, one {@link S3Channel} per
 * connection. Request lines and headers are bounded (8 KiB and 16 KiB: S3's own limit for headers
 * is 8 KiB of user metadata), a connection that sends and takes nothing for the idle timeout is
 * closed, and past the connection limit the oldest gives way to the newest.
 */
// Closes and the close future's listener: nothing waits for them.
@SuppressWarnings("FutureReturnValueIgnored")
final class S3Server implements AutoCloseable {
  private static final int MAX_INITIAL_LINE = 8 << 10;
  private static final int MAX_HEADERS = 16 << 10;
  private static final int MAX_CHUNK = 64 << 10;

  private final EventLoopGroup loop;
  private final Channel channel;

  S3Server(
      String bindHost,
      int port,
      int maxConnections,
      Duration idleTimeout,
      Executor executor,
      S3Channel.Exchanges exchanges)
      throws IOException {
    ConnectionGate gate =
        new ConnectionGate(
            new ConnectionGate.Limits(
                maxConnections, maxConnections, Math.max(1, maxConnections / 4), 1, 0));
    loop =
        new MultiThreadIoEventLoopGroup(
            2, new DefaultThreadFactory("strata-s3-io", true), NioIoHandler.newFactory());
    try {
      channel =
          new ServerBootstrap()
              .group(loop)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.AUTO_READ, false)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ConnectionGate.Held held =
                          gate.admit(ch.remoteAddress().getAddress(), ch::close);
                      if (held == null) {
                        ch.close();
                        return;
                      }
                      ch.closeFuture().addListener(f -> held.leave());
                      ChannelPipeline p = ch.pipeline();
                      p.addLast(
                          new IdleStateHandler(
                              0, 0, idleTimeout.toMillis(), TimeUnit.MILLISECONDS));
                      p.addLast(new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK));
                      p.addLast(new S3Channel(executor, exchanges, idleTimeout));
                    }
                  })
              .bind(new InetSocketAddress(bindHost, port))
              .syncUninterruptibly()
              .channel();
    } catch (RuntimeException e) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw new IOException("cannot serve S3 on " + bindHost + ":" + port + ": " + e, e);
    }
  }

  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
