package io.strata.core.metrics;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One connection of the web port: each request must arrive whole within the request limit and its
 * answer leave within the response limit, or the connection is closed. Nothing blocks the event
 * loop: a client that trickles a request in, or reads its answer slowly, holds no thread, and the
 * immediate routes (/health) are answered on the loop itself.
 */
// Writes and closes: a failed one closes the connection, and nothing else waits for them.
@SuppressWarnings("FutureReturnValueIgnored")
final class WebRequests extends SimpleChannelInboundHandler<FullHttpRequest> {
  private final Map<String, WebRoute> routes;
  private final Executor executor;
  private final Duration requestLimit;
  private final Duration responseLimit;
  private ScheduledFuture<?> deadline;

  WebRequests(
      Map<String, WebRoute> routes,
      Executor executor,
      Duration requestLimit,
      Duration responseLimit) {
    this.routes = routes;
    this.executor = executor;
    this.requestLimit = requestLimit;
    this.responseLimit = responseLimit;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    arm(ctx, requestLimit);
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    disarm();
    super.channelInactive(ctx);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    disarm();
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    if (!req.decoderResult().isSuccess()) {
      send(ctx, WebRoute.Response.text(400, "malformed request\n"), false);
      return;
    }
    if (!req.method().equals(HttpMethod.GET)) {
      send(ctx, WebRoute.Response.text(405, "only GET is served here\n"), false);
      return;
    }
    WebRoute route = routes.get(new QueryStringDecoder(req.uri()).path());
    if (route == null) {
      send(
          ctx,
          WebRoute.Response.text(404, "not found; this port serves " + routes.keySet() + "\n"),
          keepAlive);
      return;
    }
    Map<String, String> headers = new HashMap<>();
    req.headers().forEach(h -> headers.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
    InetAddress remote = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
    WebRoute.Request request = new WebRoute.Request(remote, Map.copyOf(headers));
    // The answer's own limit runs from here: a heavy route's time counts against it too.
    arm(ctx, responseLimit);
    if (route.immediate()) {
      send(ctx, route.answer(request), keepAlive);
      return;
    }
    try {
      executor.execute(
          () -> {
            WebRoute.Response answer = route.answer(request);
            ctx.executor().execute(() -> send(ctx, answer, keepAlive));
          });
    } catch (RejectedExecutionException e) {
      send(ctx, WebRoute.Response.text(503, "stopping\n"), false);
    }
  }

  private void send(ChannelHandlerContext ctx, WebRoute.Response answer, boolean keepAlive) {
    if (!ctx.channel().isActive()) {
      return;
    }
    byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
    FullHttpResponse res =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(answer.status()),
            Unpooled.wrappedBuffer(body));
    res.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
    res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    answer.headers().forEach(res.headers()::set);
    if (!keepAlive) {
      res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    arm(ctx, responseLimit);
    ctx.writeAndFlush(res)
        .addListener(
            f -> {
              disarm();
              if (!f.isSuccess() || !keepAlive) {
                ctx.close();
              } else {
                arm(ctx, requestLimit);
              }
            });
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset or a bad TLS record: nothing to answer, nothing worth a log line per client.
    ctx.close();
  }

  private void arm(ChannelHandlerContext ctx, Duration limit) {
    disarm();
    deadline = ctx.executor().schedule(() -> ctx.close(), limit.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void disarm() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }
}
