package io.strata.s3;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One connection to the endpoint, on its event loop: a request's line and headers start an {@link
 * S3Exchange} on the executor, its body follows through a {@link BodyStream}. The channel reads
 * only when asked, so one request is in hand at a time and a body arrives as fast as it is taken.
 */
// Writes whose outcome the next write or the connection's close reports; closes nobody waits for.
@SuppressWarnings("FutureReturnValueIgnored")
final class S3Channel extends ChannelInboundHandlerAdapter {
  /** Makes the work of one request once its line and headers arrived. */
  interface Exchanges {
    Runnable exchange(ChannelHandlerContext ctx, HttpRequest request, BodyStream body, Done done);
  }

  /** What an exchange calls once its answer is written. */
  interface Done {
    void answered(boolean reusable);
  }

  /**
   * The most of a body read and dropped after its request was answered early (an error before the
   * body was needed): closing with bytes unread would reset the connection, and the client, still
   * sending, would see a broken pipe instead of the answer. A larger rest closes the connection.
   */
  static final long MAX_DRAIN = 8L << 20;

  private final Executor executor;
  private final Exchanges exchanges;
  private final Duration bodyWait;
  private BodyStream body;

  /** The answered request's body is being read to its end and dropped. */
  private boolean draining;

  S3Channel(Executor executor, Exchanges exchanges, Duration bodyWait) {
    this.executor = executor;
    this.exchanges = exchanges;
    this.bodyWait = bodyWait;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.read();
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest request) {
        if (request.decoderResult().isFailure() || body != null) {
          // A request line or header the codec could not take (too long, malformed), or a second
          // request sent before the first was answered (pipelining, which S3 clients do not do).
          ctx.close();
          return;
        }
        if (HttpUtil.is100ContinueExpected(request)) {
          request.headers().remove(HttpHeaderNames.EXPECT);
          ctx.writeAndFlush(
              new io.netty.handler.codec.http.DefaultFullHttpResponse(
                  io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
                  io.netty.handler.codec.http.HttpResponseStatus.CONTINUE));
        }
        // A read asked for by the body's reader is issued only if a body still wants bytes when
        // the event loop gets to it: one asked for just before the body's last bytes arrived
        // would stay pending, take the client's next request before answered() ran, and close
        // the connection as pipelining (strata bench s3 saw PUTs broken off so, 1 run in 3).
        BodyStream b =
            new BodyStream(
                () -> ctx.channel().eventLoop().execute(() -> readIfWanted(ctx)), bodyWait);
        body = b;
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        Runnable work =
            exchanges.exchange(
                ctx,
                request,
                b,
                reusable ->
                    ctx.channel()
                        .eventLoop()
                        .execute(() -> answered(ctx, b, keepAlive && reusable)));
        try {
          executor.execute(work);
        } catch (RejectedExecutionException e) {
          ctx.close();
        }
      }
      if (msg instanceof HttpContent content && body != null) {
        if (content.decoderResult().isFailure()) {
          body.fail(new IOException("a malformed body: " + content.decoderResult().cause()));
          ctx.close();
          return;
        }
        body.offer(content.content());
        if (msg instanceof LastHttpContent) {
          body.end();
        }
        if (draining) {
          drained(ctx);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    readIfWanted(ctx);
    ctx.fireChannelReadComplete();
  }

  /** On the event loop: reads on if a request's body waits for bytes, or is being dropped. */
  private void readIfWanted(ChannelHandlerContext ctx) {
    if (body != null && (body.wanting() || draining)) {
      ctx.read();
    }
  }

  /** On the event loop, as a drained body's bytes arrive: the next request once it ended. */
  private void drained(ChannelHandlerContext ctx) {
    if (body.ended()) {
      draining = false;
      body = null;
      ctx.read();
    } else if (body.received() > MAX_DRAIN) {
      ctx.close();
    }
  }

  /** On the event loop, once the answer is written: the next request, or the end. */
  private void answered(ChannelHandlerContext ctx, BodyStream b, boolean keepAlive) {
    if (body != b) {
      return;
    }
    b.close();
    if (keepAlive && !b.ended() && b.received() <= MAX_DRAIN && !b.failedEarly()) {
      // Answered before the body was read (an error): read the rest, drop it, then go on.
      draining = true;
      ctx.read();
      return;
    }
    body = null;
    if (keepAlive && b.ended()) {
      ctx.read();
    } else {
      ctx.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (body != null) {
      body.fail(new IOException("the client closed the connection"));
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
