package io.strata.worker.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.strata.core.transport.ReadRequest;
import java.util.List;

/** Turns one request frame into a {@link ReadRequest}; a malformed frame fails the pipeline. */
final class ReadRequestDecoder extends MessageToMessageDecoder<ByteBuf> {
  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
    out.add(ReadRequest.decode(frame));
  }
}
