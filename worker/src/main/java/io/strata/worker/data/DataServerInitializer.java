package io.strata.worker.data;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.strata.core.transport.Frames;
import java.util.function.Supplier;

/** The pipeline of one data connection: frame splitting, request decoding, reading. */
final class DataServerInitializer extends ChannelInitializer<Channel> {
  private final Supplier<ReadHandler> handlers;

  DataServerInitializer(Supplier<ReadHandler> handlers) {
    this.handlers = handlers;
  }

  @Override
  protected void initChannel(Channel ch) {
    ch.pipeline()
        .addLast("frames", Frames.requestFrameDecoder())
        .addLast("requests", new ReadRequestDecoder())
        .addLast("reads", handlers.get());
  }
}
