package io.strata.master.service;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.strata.core.net.HostPort;
import io.strata.core.proto.GetMasterStatusRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.MasterStatus;
import io.strata.core.rpc.Channels;
import io.strata.core.rpc.GrpcErrors;
import io.strata.core.security.Credentials;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** gRPC channels from this master to the other masters, to ask each for its own status. */
public final class PeerClients implements AutoCloseable {
  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Credentials credentials;

  /** Calls carry {@code credentials}: the master's own, signed with the cluster secret. */
  public PeerClients(Credentials credentials) {
    this.credentials = credentials;
  }

  /**
   * The status a master reports of itself; throws StrataException if it does not answer in time.
   */
  public MasterStatus status(HostPort master, Duration timeout) {
    try {
      return MasterServiceGrpc.newBlockingStub(
              channels.computeIfAbsent(master, t -> Channels.open(t, credentials)))
          .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .getMasterStatus(GetMasterStatusRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromGrpc(e, "master " + master);
    }
  }

  @Override
  public void close() {
    channels.values().forEach(Channels::close);
    channels.clear();
  }
}
