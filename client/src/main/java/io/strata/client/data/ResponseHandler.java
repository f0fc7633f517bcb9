package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import java.nio.charset.StandardCharsets;

/**
 * Feeds the response frames of one connection to the call in flight on it. A frame for another
 * request, or a broken frame, fails the call and closes the connection.
 */
final class ResponseHandler extends ChannelInboundHandlerAdapter {
  private volatile ReadCall call;

  void begin(ReadCall next) {
    call = next;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      ReadCall c = call;
      if (frame.readableBytes() < Frames.HEADER) {
        throw new StrataException(StatusCode.INTERNAL, "short frame from worker");
      }
      byte type = frame.readByte();
      long requestId = frame.readLong();
      if (c == null || requestId != c.requestId) {
        throw new StrataException(StatusCode.INTERNAL, "worker answered request " + requestId + " unasked");
      }
      if (type == Frames.DATA) {
        c.data(frame.readLong(), frame);
      } else if (type == Frames.END) {
        StatusCode code = StatusCode.fromNumber(frame.readUnsignedByte());
        int n = frame.readUnsignedShort();
        String message = frame.toString(frame.readerIndex(), Math.min(n, frame.readableBytes()), StandardCharsets.UTF_8);
        call = null;
        c.end(code, message);
      } else {
        throw new StrataException(StatusCode.INTERNAL, "unknown frame type " + type + " from worker");
      }
    } catch (RuntimeException e) {
      failAndClose(ctx, e instanceof StrataException se ? se : StrataException.internal("bad frame from worker", e));
    } finally {
      frame.release();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ReadCall c = call;
    if (c != null) {
      c.fail(StrataException.unavailable("worker closed the data connection " + ctx.channel().remoteAddress(), null));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    failAndClose(ctx, StrataException.unavailable("data connection failed: " + cause.getMessage(), cause));
  }

  private void failAndClose(ChannelHandlerContext ctx, StrataException e) {
    ReadCall c = call;
    call = null;
    if (c != null) {
      c.fail(e);
    }
    ctx.close();
  }
}
