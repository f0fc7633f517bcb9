package io.strata.worker.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.strata.core.transport.Frames;
import java.util.List;

/**
 * Turns one request frame into a ReadRequest or an OpenRequest; a malformed frame fails the
 * pipeline.
 */
final class ReadRequestDecoder extends MessageToMessageDecoder<ByteBuf> {
  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
    out.add(Frames.decodeRequest(frame));
  }
}
