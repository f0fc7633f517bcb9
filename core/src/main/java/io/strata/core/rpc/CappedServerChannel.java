package io.strata.core.rpc;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * A gRPC server's listening socket that holds at most {@code max} connections open at once: one
 * accepted past it is closed at once, before any byte of it is read. Without the cap a peer that
 * opens connections and keeps them (no call needed) runs the process out of file descriptors, and
 * with them its cache files and under-storage.
 */
// The close future's listener only counts; the future itself is the channel's and never fails.
@SuppressWarnings("FutureReturnValueIgnored")
final class CappedServerChannel extends NioServerSocketChannel {
  private final int max;
  private final AtomicInteger open;
  private final IntConsumer refused;

  /**
   * @param open the server's count of open connections (shared by its channels)
   * @param refused told the count when a connection is refused
   */
  CappedServerChannel(int max, AtomicInteger open, IntConsumer refused) {
    this.max = max;
    this.open = open;
    this.refused = refused;
  }

  @Override
  protected int doReadMessages(List<Object> buf) throws Exception {
    int from = buf.size();
    int read = super.doReadMessages(buf);
    for (int i = buf.size() - 1; i >= from; i--) {
      Channel child = (Channel) buf.get(i);
      if (open.incrementAndGet() > max) {
        open.decrementAndGet();
        buf.remove(i);
        read--;
        child.unsafe().closeForcibly();
        refused.accept(max);
      } else {
        child.closeFuture().addListener(f -> open.decrementAndGet());
      }
    }
    return read;
  }
}
