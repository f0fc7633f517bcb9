package io.strata.core.rpc;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoop;
import io.strata.core.net.ConnectionGate;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A gRPC port's connections as its {@link ConnectionGate} holds them, found again by the remote
 * address a call carries ({@link io.grpc.Grpc#TRANSPORT_ATTR_REMOTE_ADDR}): a TCP connection's is
 * unique on one listening port.
 */
// The close future's listener only counts; the future is the channel's and never fails.
@SuppressWarnings("FutureReturnValueIgnored")
final class GatedConnections {
  private final ConnectionGate gate;
  private final Map<SocketAddress, ConnectionGate.Held> byRemote = new ConcurrentHashMap<>();
  private final Set<Channel> closedEarly = ConcurrentHashMap.newKeySet();

  GatedConnections(ConnectionGate gate) {
    this.gate = gate;
  }

  ConnectionGate gate() {
    return gate;
  }

  /** Admits the accepted {@code child} (not yet registered); null when there is no room. */
  ConnectionGate.Held admit(Channel child) {
    SocketAddress remote = child.remoteAddress();
    Object source = remote instanceof InetSocketAddress a ? a.getAddress() : remote;
    ConnectionGate.Held held = gate.admit(source, () -> close(child, remote));
    if (held == null) {
      return null;
    }
    byRemote.put(remote, held);
    child
        .closeFuture()
        .addListener(
            f -> {
              byRemote.remove(remote, held);
              held.leave();
            });
    return held;
  }

  /** The connection a call came by, if the gate holds it. */
  ConnectionGate.Held held(SocketAddress remote) {
    return remote == null ? null : byRemote.get(remote);
  }

  private void close(Channel child, SocketAddress remote) {
    byRemote.remove(remote);
    EventLoop loop;
    try {
      loop = child.eventLoop();
    } catch (IllegalStateException acceptedInThisBatch) {
      // Not yet handed to an event loop: the accepting loop drops it ({@link #closedEarly}).
      closedEarly.add(child);
      return;
    }
    // On its loop, after its registration; past the pipeline: gRPC's close is a graceful GOAWAY
    // that waits up to 10 s for a ping's answer a silent peer never sends.
    loop.execute(() -> child.unsafe().close(child.unsafe().voidPromise()));
  }

  /**
   * Whether {@code child}, accepted in the batch being read, was closed for room before it had an
   * event loop: the caller then drops it from the batch and closes it itself.
   */
  boolean closedEarly(Channel child) {
    return closedEarly.remove(child);
  }
}
