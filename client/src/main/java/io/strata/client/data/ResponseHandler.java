package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.MalformedFrameException;
import io.strata.core.transport.Response;
import io.strata.core.transport.ResponseDecoder;

/**
 * Reads the answers of one connection as they come off the socket, through a {@link
 * ResponseDecoder}: DATA payloads go straight into the call's destination without being reassembled
 * into whole frames first. A frame for a request not in flight, a frame the call does not expect
 * (STATUS among them: opens go over blocking connections), or one that breaks the format fails the
 * call and closes the connection.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close(): what follows a close is channelInactive's
final class ResponseHandler extends ChannelInboundHandlerAdapter {
  private final ResponseDecoder decoder = new ResponseDecoder();
  private volatile Call<?> call;

  void begin(Call<?> next) {
    call = next;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      while (in.isReadable()) {
        int payload = decoder.payloadLeft();
        if (payload > 0) {
          int n = Math.min(payload, in.readableBytes());
          current().data(in, n);
          decoder.payloadTaken(n);
          continue;
        }
        Response r = decoder.next(in);
        if (r == null) {
          return;
        }
        answered(r);
      }
    } catch (MalformedFrameException e) {
      failAndClose(ctx, DataConnection.protocol(e.getMessage()));
    } catch (StrataException e) {
      failAndClose(ctx, e);
    } catch (RuntimeException e) {
      failAndClose(ctx, StrataException.internal("bad response from worker: " + e, e));
    } finally {
      in.release();
    }
  }

  private void answered(Response r) {
    Call<?> c = current();
    if (r.requestId() != c.requestId) {
      throw DataConnection.protocol("worker answered request " + r.requestId() + " unasked");
    }
    if (r instanceof Response.Data d) {
      if (d.offset() != c.expectedOffset()) {
        throw DataConnection.protocol(
            "worker sent bytes out of order (at "
                + d.offset()
                + ", expected "
                + c.expectedOffset()
                + ")");
      }
    } else if (r instanceof Response.Leased l) {
      c.leased(l.grant());
    } else if (r instanceof Response.End e) {
      call = null;
      c.end(e.code(), e.message());
    } else {
      throw DataConnection.protocol("unexpected " + r + " on this connection");
    }
  }

  private Call<?> current() {
    Call<?> c = call;
    if (c == null) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent data with no request in flight");
    }
    return c;
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
