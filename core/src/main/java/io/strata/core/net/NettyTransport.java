package io.strata.core.net;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.ThreadFactory;

/**
 * Netty's native epoll transport where the platform has it, NIO elsewhere; TCP and domain sockets.
 */
public enum NettyTransport {
  EPOLL,
  NIO;

  public static NettyTransport best() {
    return Epoll.isAvailable() ? EPOLL : NIO;
  }

  public EventLoopGroup newGroup(int threads, ThreadFactory threadFactory) {
    IoHandlerFactory factory =
        this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(threads, threadFactory, factory);
  }

  public Class<? extends ServerChannel> serverChannel(boolean domainSocket) {
    if (this == EPOLL) {
      return domainSocket ? EpollServerDomainSocketChannel.class : EpollServerSocketChannel.class;
    }
    return domainSocket ? NioServerDomainSocketChannel.class : NioServerSocketChannel.class;
  }

  public Class<? extends Channel> clientChannel(boolean domainSocket) {
    if (this == EPOLL) {
      return domainSocket ? EpollDomainSocketChannel.class : EpollSocketChannel.class;
    }
    return domainSocket ? NioDomainSocketChannel.class : NioSocketChannel.class;
  }
}
