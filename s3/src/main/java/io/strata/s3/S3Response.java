package io.strata.s3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The answer to one request, written from the thread that made it: headers once, then a body whole,
 * in chunks (waiting while the client's socket is full), or as a region of a file the kernel sends
 * itself. An answer whose body broke off closes the connection: a client must not take a short body
 * for a whole one.
 */
// Writes whose outcome the next write or the connection's close reports; closes nobody waits for.
@SuppressWarnings("FutureReturnValueIgnored")
final class S3Response {
  private final ChannelHandlerContext ctx;
  private final boolean head;
  private final Duration writeWait;
  private final String requestId;
  private final HttpHeaders extra = new io.netty.handler.codec.http.DefaultHttpHeaders();
  private boolean started;
  private boolean broken;

  S3Response(ChannelHandlerContext ctx, boolean head, Duration writeWait, String requestId) {
    this.ctx = ctx;
    this.head = head;
    this.writeWait = writeWait;
    this.requestId = requestId;
  }

  /** A header every answer of this request carries (set before the answer starts). */
  S3Response header(CharSequence name, Object value) {
    extra.set(name, value);
    return this;
  }

  boolean started() {
    return started;
  }

  /** Whether the connection can carry another request after this answer. */
  boolean reusable() {
    return started && !broken;
  }

  void xml(int status, String document) {
    byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
    extra.set(HttpHeaderNames.CONTENT_TYPE, "application/xml");
    whole(status, Unpooled.wrappedBuffer(bytes));
  }

  /** An answer without a body (its headers may still give a length, as HEAD's do). */
  void empty(int status) {
    whole(status, Unpooled.EMPTY_BUFFER);
  }

  void error(S3Error e, String resource) {
    if (started) {
      // The headers are gone: the only way to tell the client is to break the body off.
      broken = true;
      ctx.close();
      return;
    }
    extra.clear();
    if (e.status == 503) {
      extra.set(HttpHeaderNames.RETRY_AFTER, "1");
    }
    if (head) {
      start(e.status, 0);
      finish();
      return;
    }
    xml(e.status, S3Xml.error(e, resource, requestId));
  }

  private void whole(int status, ByteBuf body) {
    start(
        status, head && extra.contains(HttpHeaderNames.CONTENT_LENGTH) ? -1 : body.readableBytes());
    if (!head && body.isReadable()) {
      ctx.write(new DefaultHttpContent(body));
    } else {
      body.release();
    }
    finish();
  }

  /**
   * Starts an answer of {@code length} bytes (-1: the headers already say); its bytes follow by
   * {@link #chunk} or {@link #region}, then {@link #finish}.
   */
  void start(int status, long length) {
    DefaultHttpResponse r =
        new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
    r.headers().set(extra);
    r.headers().set("x-amz-request-id", requestId);
    r.headers().set(HttpHeaderNames.SERVER, "Strata");
    r.headers()
        .set(
            HttpHeaderNames.DATE,
            DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
    if (length >= 0) {
      r.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
    }
    started = true;
    ctx.write(r);
  }

  /** A part of the body; waits while the client has not taken what was sent before. */
  void chunk(ByteBuf bytes) throws IOException {
    ChannelFuture f = ctx.writeAndFlush(new DefaultHttpContent(bytes));
    if (!ctx.channel().isWritable()) {
      await(f);
    }
  }

  /** {@code count} bytes of {@code file} from {@code position}, sent by the kernel. */
  void region(FileChannel file, long position, long count) throws IOException {
    await(ctx.writeAndFlush(new DefaultFileRegion(file, position, count)));
  }

  void finish() {
    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
  }

  private void await(ChannelFuture f) throws IOException {
    try {
      if (!f.await(writeWait.toMillis())) {
        broken = true;
        ctx.close();
        throw new IOException("the client took nothing for " + writeWait);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while sending an answer", e);
    }
    if (!f.isSuccess()) {
      broken = true;
      throw new IOException("the answer could not be sent: " + f.cause(), f.cause());
    }
  }

  /** Marks the answer broken off: the connection closes once it is written. */
  void breakOff() {
    broken = true;
  }
}
