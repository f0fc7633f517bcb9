package io.strata.core.rpc;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.strata.core.net.HostPort;
import java.util.concurrent.TimeUnit;

/** Creates and closes the gRPC channels of Strata's clients. */
public final class Channels {
  /** Large enough for a write chunk or a listing batch, small enough to bound memory. */
  public static final int MAX_MESSAGE = 8 << 20;

  private Channels() {}

  public static ManagedChannel open(HostPort target) {
    return Grpc.newChannelBuilderForAddress(target.host(), target.port(), InsecureChannelCredentials.create())
        .maxInboundMessageSize(MAX_MESSAGE)
        .intercept(new UserInterceptor())
        .build();
  }

  public static void close(ManagedChannel channel) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
