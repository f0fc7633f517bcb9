package io.strata.worker.data;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.strata.core.net.ConnectionGate;
import io.strata.core.security.Security;
import io.strata.core.transport.Frames;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of one data connection: TLS (TCP connections of a cluster that has it), idleness,
 * frame splitting, authentication, request decoding, reading. Who holds the server's places is its
 * {@link ConnectionGate}'s: a connection with no room is closed as it arrives.
 */
// close() of a connection refused: nothing waits for it, and what follows is the close listener's.
@SuppressWarnings("FutureReturnValueIgnored")
final class DataServerInitializer extends ChannelInitializer<Channel> {
  private static final Logger LOG = LoggerFactory.getLogger(DataServerInitializer.class);

  /**
   * How many connections a server keeps (in all, unproven, per source and per user), how long one
   * may do nothing, and who may use one (the {@link Gatekeeper}'s security, whose TLS, if any, TCP
   * connections use).
   */
  record Limits(ConnectionGate.Limits connections, Duration idleTimeout, Security security) {
    static final Limits NONE =
        new Limits(ConnectionGate.Limits.UNBOUNDED, Duration.ZERO, Security.none());
  }

  private final Supplier<ReadHandler> handlers;
  private final DataServerMetrics metrics;
  private final Limits limits;
  private final ConnectionGate gate;

  DataServerInitializer(Supplier<ReadHandler> handlers, DataServerMetrics metrics) {
    this(handlers, metrics, Limits.NONE);
  }

  DataServerInitializer(Supplier<ReadHandler> handlers, DataServerMetrics metrics, Limits limits) {
    this.handlers = handlers;
    this.metrics = metrics;
    this.limits = limits;
    this.gate = new ConnectionGate(limits.connections());
  }

  @Override
  protected void initChannel(Channel ch) {
    ConnectionGate.Held held = gate.admit(source(ch), ch::close);
    if (held == null) {
      metrics.refusedConnections().increment();
      LOG.debug("closing a data connection from {}: {} are open", ch.remoteAddress(), limits);
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> held.leave());
    boolean local = isDomainSocket(ch);
    metrics.connections(local).increment();
    if (!local && limits.security().tls().isPresent()) {
      ch.pipeline()
          .addLast("tls", limits.security().tls().get().nettyServer().newHandler(ch.alloc()))
          .addLast("regions", new FileRegionCopier());
    }
    if (!limits.idleTimeout().isZero()) {
      // Output that makes no progress counts as idle: a client that stopped reading is dropped.
      ch.pipeline()
          .addLast(
              "idle",
              new IdleStateHandler(
                  true, 0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
    }
    ch.pipeline()
        .addLast("frames", Frames.requestFrameDecoder())
        .addLast(
            "gate",
            new Gatekeeper(limits.security(), Clock.systemUTC(), Gatekeeper.AUTH_DEADLINE, held))
        .addLast("requests", new RequestDecoder())
        .addLast("reads", handlers.get());
  }

  /** Data connections open now. */
  int open() {
    return gate.open();
  }

  /**
   * Where a connection comes from, for the per-source limit: a TCP peer's address; on the domain
   * socket, the peer's account where the transport tells it (epoll), else one source for all.
   */
  private static Object source(Channel ch) {
    if (ch instanceof EpollDomainSocketChannel uds) {
      try {
        return "uid:" + uds.peerCredentials().uid();
      } catch (java.io.IOException e) {
        return "local";
      }
    }
    if (ch.remoteAddress() instanceof InetSocketAddress a) {
      return a.getAddress();
    }
    return isDomainSocket(ch) ? "local" : String.valueOf(ch.remoteAddress());
  }

  static boolean isDomainSocket(Channel ch) {
    return ch instanceof DomainSocketChannel
        || ch.localAddress() instanceof UnixDomainSocketAddress;
  }
}
