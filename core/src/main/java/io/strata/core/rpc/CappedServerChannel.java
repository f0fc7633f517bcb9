package io.strata.core.rpc;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.strata.core.net.ConnectionGate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * A gRPC server's listening socket whose connections its {@link GatedConnections} admits: one with
 * no room is closed at once, before any byte of it is read, and one that has not proved a token or
 * the secret within {@code deadline} is closed then. Without this a peer that opens connections and
 * keeps them (no call needed) runs the process out of file descriptors, or out of places for its
 * workers' heartbeats.
 */
// The deadline's future: cancelled by nothing, a close at worst of a closed channel.
@SuppressWarnings("FutureReturnValueIgnored")
final class CappedServerChannel extends NioServerSocketChannel {
  private final GatedConnections connections;
  private final Duration deadline;
  private final IntConsumer refused;

  /**
   * @param refused told the port's maximum when a connection is refused
   */
  CappedServerChannel(GatedConnections connections, Duration deadline, IntConsumer refused) {
    this.connections = connections;
    this.deadline = deadline;
    this.refused = refused;
  }

  @Override
  protected int doReadMessages(List<Object> buf) throws Exception {
    int from = buf.size();
    int read = super.doReadMessages(buf);
    for (int i = buf.size() - 1; i >= from; i--) {
      Channel child = (Channel) buf.get(i);
      ConnectionGate.Held held = connections.admit(child);
      if (held == null) {
        buf.remove(i);
        read--;
        child.unsafe().closeForcibly();
        refused.accept(connections.gate().limits().max());
      } else {
        eventLoop()
            .schedule(
                () -> {
                  if (held.standing() == ConnectionGate.Standing.UNPROVEN) {
                    held.close();
                  }
                },
                deadline.toMillis(),
                TimeUnit.MILLISECONDS);
      }
    }
    // Those of this batch closed for room by later ones: never registered, so never counted out
    // by a close listener; closed here, unread, before anything is set on them.
    for (int i = buf.size() - 1; i >= from; i--) {
      Channel child = (Channel) buf.get(i);
      if (connections.closedEarly(child)) {
        buf.remove(i);
        read--;
        child.unsafe().closeForcibly();
      }
    }
    return read;
  }
}
