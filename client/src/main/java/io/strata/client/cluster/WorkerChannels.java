package io.strata.client.cluster;

import io.grpc.ManagedChannel;
import io.strata.core.net.HostPort;
import io.strata.core.proto.MetadataWatchServiceGrpc;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.rpc.Channels;
import io.strata.core.security.Credentials;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** One gRPC channel per worker, opened on first use and kept until close. Thread-safe. */
public final class WorkerChannels implements AutoCloseable {
  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Duration timeout;
  private final Credentials credentials;

  public WorkerChannels(Duration timeout, Credentials credentials) {
    this.timeout = timeout;
    this.credentials = credentials;
  }

  public static HostPort rpcAddress(WorkerInfo w) {
    return new HostPort(w.getAddress().getHost(), w.getAddress().getRpcPort());
  }

  public WorkerServiceGrpc.WorkerServiceBlockingStub blocking(WorkerInfo w) {
    return WorkerServiceGrpc.newBlockingStub(channel(w))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public WorkerServiceGrpc.WorkerServiceStub async(WorkerInfo w) {
    return WorkerServiceGrpc.newStub(channel(w));
  }

  /** For a stream that lasts as long as the client: no deadline. */
  public MetadataWatchServiceGrpc.MetadataWatchServiceStub watch(WorkerInfo w) {
    return MetadataWatchServiceGrpc.newStub(channel(w));
  }

  private ManagedChannel channel(WorkerInfo w) {
    return channels.computeIfAbsent(rpcAddress(w), t -> Channels.open(t, credentials));
  }

  @Override
  public void close() {
    channels.values().forEach(Channels::close);
    channels.clear();
  }
}
