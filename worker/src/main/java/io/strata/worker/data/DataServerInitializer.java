package io.strata.worker.data;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.unix.DomainSocketChannel;
import io.strata.core.transport.Frames;
import java.net.UnixDomainSocketAddress;
import java.util.function.Supplier;

/** The pipeline of one data connection: frame splitting, request decoding, reading. */
final class DataServerInitializer extends ChannelInitializer<Channel> {
  private final Supplier<ReadHandler> handlers;
  private final DataServerMetrics metrics;

  DataServerInitializer(Supplier<ReadHandler> handlers, DataServerMetrics metrics) {
    this.handlers = handlers;
    this.metrics = metrics;
  }

  @Override
  protected void initChannel(Channel ch) {
    metrics.connections(isDomainSocket(ch)).increment();
    ch.pipeline()
        .addLast("frames", Frames.requestFrameDecoder())
        .addLast("requests", new RequestDecoder())
        .addLast("reads", handlers.get());
  }

  static boolean isDomainSocket(Channel ch) {
    return ch instanceof DomainSocketChannel
        || ch.localAddress() instanceof UnixDomainSocketAddress;
  }
}
