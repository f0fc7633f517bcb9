package io.strata.worker.data;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.strata.core.security.Security;
import io.strata.core.transport.Frames;
import java.net.UnixDomainSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of one data connection: TLS (TCP connections of a cluster that has it), idleness,
 * frame splitting, authentication, request decoding, reading. A connection over the server's cap is
 * closed as it arrives.
 */
// close() of a connection refused: nothing waits for it, and what follows is the close listener's.
@SuppressWarnings("FutureReturnValueIgnored")
final class DataServerInitializer extends ChannelInitializer<Channel> {
  private static final Logger LOG = LoggerFactory.getLogger(DataServerInitializer.class);

  /**
   * How many connections a server keeps, how long one may do nothing, and who may use one (the
   * {@link Gatekeeper}'s security, whose TLS, if any, TCP connections use).
   */
  record Limits(int maxConnections, Duration idleTimeout, Security security) {
    static final Limits NONE = new Limits(Integer.MAX_VALUE, Duration.ZERO, Security.none());
  }

  private final Supplier<ReadHandler> handlers;
  private final DataServerMetrics metrics;
  private final Limits limits;
  private final AtomicInteger open = new AtomicInteger();

  /** A quarter of the places at most go to connections that have not yet proved a token. */
  private final Gatekeeper.Waiting unauthenticated;

  DataServerInitializer(Supplier<ReadHandler> handlers, DataServerMetrics metrics) {
    this(handlers, metrics, Limits.NONE);
  }

  DataServerInitializer(Supplier<ReadHandler> handlers, DataServerMetrics metrics, Limits limits) {
    this.handlers = handlers;
    this.metrics = metrics;
    this.limits = limits;
    this.unauthenticated = new Gatekeeper.Waiting(Math.max(16, limits.maxConnections() / 4));
  }

  @Override
  protected void initChannel(Channel ch) {
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      metrics.refusedConnections().increment();
      LOG.debug("closing a data connection from {}: {} are open", ch.remoteAddress(), limits);
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
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
            new Gatekeeper(
                limits.security(), Clock.systemUTC(), Gatekeeper.AUTH_DEADLINE, unauthenticated))
        .addLast("requests", new RequestDecoder())
        .addLast("reads", handlers.get());
  }

  /** Data connections open now. */
  int open() {
    return open.get();
  }

  static boolean isDomainSocket(Channel ch) {
    return ch instanceof DomainSocketChannel
        || ch.localAddress() instanceof UnixDomainSocketAddress;
  }
}
