package io.strata.core.rpc;

import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.AbstractStub;
import io.strata.core.net.HostPort;
import io.strata.core.security.Credentials;
import io.strata.core.security.Tls;
import java.util.concurrent.TimeUnit;

/**
 * Creates and closes the gRPC channels of Strata's clients.
 *
 * <p>The channels share one event loop group, created with the first channel and shut down when the
 * last one closes. gRPC's own shared group lingers for a second after its last channel, and a JVM
 * exiting while its threads sit in epoll waits 300 ms for them: every shell command paid that.
 */
public final class Channels {
  /** Large enough for a write chunk or a listing batch, small enough to bound memory. */
  public static final int MAX_MESSAGE = 8 << 20;

  private static final int EVENT_LOOPS = Math.min(4, Runtime.getRuntime().availableProcessors());

  private static EventLoopGroup group;
  private static int open;

  private Channels() {}

  /**
   * A channel to {@code target} whose calls carry {@code credentials}, over TLS if they have it.
   */
  public static ManagedChannel open(HostPort target, Credentials credentials) {
    return NettyChannelBuilder.forAddress(
            target.host(),
            target.port(),
            credentials.tls().map(Tls::grpcChannel).orElseGet(InsecureChannelCredentials::create))
        .eventLoopGroup(acquireGroup())
        .channelType(NioSocketChannel.class)
        .maxInboundMessageSize(MAX_MESSAGE)
        .intercept(new CallerInterceptor(credentials))
        .build();
  }

  /**
   * {@code stub}, whose calls carry {@code token} instead of the channel's own credentials: a
   * cluster process asking a neighbour as the user it serves, so that the neighbour's own checks
   * decide (the master checking that a user may list what they ask it to load).
   */
  public static <S extends AbstractStub<S>> S actingAs(S stub, String token) {
    return stub.withOption(CallerInterceptor.ACTING_AS, token);
  }

  public static void close(ManagedChannel channel) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      releaseGroup();
    }
  }

  private static synchronized EventLoopGroup acquireGroup() {
    if (open++ == 0) {
      group =
          new MultiThreadIoEventLoopGroup(
              EVENT_LOOPS,
              new DefaultThreadFactory("strata-rpc-client", true),
              NioIoHandler.newFactory());
    }
    return group;
  }

  private static void releaseGroup() {
    EventLoopGroup last;
    synchronized (Channels.class) {
      if (open == 0 || --open > 0) {
        return;
      }
      last = group;
      group = null;
    }
    last.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
  }
}
