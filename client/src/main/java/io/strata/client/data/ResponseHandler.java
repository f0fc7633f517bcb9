package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.LeaseGrant;
import java.nio.charset.StandardCharsets;

/**
 * Reads the response stream of one connection as it comes off the socket: frame headers are
 * gathered in a small buffer, DATA payloads go straight into the call's destination without being
 * reassembled into whole frames first; LEASED frames are gathered whole. A frame for a request not
 * in flight, a frame out of bounds, or an unknown type (STATUS among them: opens go over blocking
 * connections) fails the call and closes the connection.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close(): what follows a close is channelInactive's
final class ResponseHandler extends ChannelInboundHandlerAdapter {
  /** length + type + requestId */
  private static final int PREFIX = 4 + Frames.HEADER;

  private final ByteBuf header = Unpooled.buffer(PREFIX + 8 + 3);
  private volatile Call<?> call;
  private int frameLength = -1;
  private byte type;
  private long payloadLeft;

  void begin(Call<?> next) {
    call = next;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      while (in.isReadable()) {
        if (payloadLeft > 0) {
          int n = (int) Math.min(payloadLeft, in.readableBytes());
          current().data(in, n);
          payloadLeft -= n;
          if (payloadLeft == 0) {
            resetFrame();
          }
        } else if (!gatherHeader(in)) {
          return;
        }
      }
    } catch (StrataException e) {
      failAndClose(ctx, e);
    } catch (RuntimeException e) {
      failAndClose(ctx, StrataException.internal("bad response from worker: " + e.getMessage(), e));
    } finally {
      in.release();
    }
  }

  /** Takes header bytes; returns false when more bytes are needed. */
  private boolean gatherHeader(ByteBuf in) {
    if (frameLength < 0) {
      if (!take(in, PREFIX)) {
        return false;
      }
      frameLength = header.readInt();
      type = header.readByte();
      long requestId = header.readLong();
      Call<?> c = call;
      if (c == null || requestId != c.requestId) {
        throw new StrataException(
            StatusCode.INTERNAL, "worker answered request " + requestId + " unasked");
      }
      if (frameLength < Frames.HEADER || frameLength > Frames.MAX_RESPONSE_FRAME) {
        throw new StrataException(
            StatusCode.INTERNAL, "response frame of " + frameLength + " bytes");
      }
      header.clear();
    }
    int body = frameLength - Frames.HEADER;
    if (type == Frames.DATA) {
      if (!take(in, 8)) {
        return false;
      }
      long at = header.readLong();
      header.clear();
      if (at != current().expectedOffset()) {
        throw new StrataException(
            StatusCode.INTERNAL,
            "worker sent bytes out of order (at "
                + at
                + ", expected "
                + current().expectedOffset()
                + ")");
      }
      payloadLeft = body - 8L;
      if (payloadLeft == 0) {
        resetFrame();
      }
      return true;
    }
    if (type == Frames.END) {
      if (body > 3 + 1024 || !take(in, body)) {
        if (body > 3 + 1024) {
          throw new StrataException(StatusCode.INTERNAL, "END frame of " + body + " bytes");
        }
        return false;
      }
      StatusCode code = StatusCode.fromNumber(header.readUnsignedByte());
      int n = Math.min(header.readUnsignedShort(), header.readableBytes());
      String message = header.toString(header.readerIndex(), n, StandardCharsets.UTF_8);
      Call<?> c = call;
      call = null;
      resetFrame();
      c.end(code, message);
      return true;
    }
    if (type == Frames.LEASED) {
      if (!take(in, body)) {
        return false;
      }
      current().leased(LeaseGrant.decode(header));
      resetFrame();
      return true;
    }
    throw new StrataException(StatusCode.INTERNAL, "unknown frame type " + type + " from worker");
  }

  /**
   * Accumulates up to {@code n} bytes of {@code in} into the header buffer; true once it holds n.
   */
  private boolean take(ByteBuf in, int n) {
    int need = n - header.readableBytes();
    if (header.writableBytes() < need) {
      header.capacity(header.readableBytes() + need);
    }
    header.writeBytes(in, Math.min(need, in.readableBytes()));
    return header.readableBytes() >= n;
  }

  private Call<?> current() {
    Call<?> c = call;
    if (c == null) {
      throw new StrataException(StatusCode.INTERNAL, "data with no request in flight");
    }
    return c;
  }

  private void resetFrame() {
    frameLength = -1;
    payloadLeft = 0;
    header.clear();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Call<?> c = call;
    if (c != null) {
      c.fail(
          StrataException.unavailable(
              "worker closed the data connection " + ctx.channel().remoteAddress(), null));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    failAndClose(
        ctx, StrataException.unavailable("data connection failed: " + cause.getMessage(), cause));
  }

  private void failAndClose(ChannelHandlerContext ctx, StrataException e) {
    Call<?> c = call;
    call = null;
    if (c != null) {
      c.fail(e);
    }
    ctx.close();
  }
}
