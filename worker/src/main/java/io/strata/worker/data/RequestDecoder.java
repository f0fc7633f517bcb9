package io.strata.worker.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.strata.core.transport.Request;
import java.util.List;

/** Turns one request frame into a {@link Request}; a malformed frame fails the pipeline. */
final class RequestDecoder extends MessageToMessageDecoder<ByteBuf> {
  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
    out.add(Request.decode(frame));
  }
}
