package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.Handshake;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Frames of a Netty connection's {@link Handshake}, read on the caller's thread: first in the
 * pipeline until the handshake is over, it gathers the server's bytes into frames. The server sends
 * nothing past the handshake's answers until asked, so nothing is left over when it leaves.
 */
// Writes and closes: a failed one ends the handshake through channelInactive or its timeout.
@SuppressWarnings("FutureReturnValueIgnored")
final class ChannelFrames extends ChannelInboundHandlerAdapter implements Handshake.FrameIo {
  private static final Object CLOSED = new Object();

  private final Channel channel;
  private final Duration timeout;
  private final BlockingQueue<Object> frames = new LinkedBlockingQueue<>();
  private ByteBuf pending = Unpooled.buffer();

  private ChannelFrames(Channel channel, Duration timeout) {
    this.channel = channel;
    this.timeout = timeout;
  }

  /** Authenticates {@code ch} with {@code token}; throws (and closes it) if refused or late. */
  static void authenticate(Channel ch, String token, Duration timeout, Endpoint worker) {
    ChannelFrames io = new ChannelFrames(ch, timeout);
    ch.pipeline().addFirst("handshake", io);
    try {
      Handshake.authenticate(io, token);
    } catch (StrataException e) {
      ch.close();
      throw e.code() == StatusCode.UNAVAILABLE
          ? StrataException.unavailable("worker " + worker + ": " + e.getMessage(), e)
          : e;
    } finally {
      if (ch.isOpen()) {
        ch.pipeline().remove(io);
      }
    }
  }

  @Override
  public void write(ByteBuffer frame) {
    channel.writeAndFlush(Unpooled.wrappedBuffer(frame));
  }

  @Override
  public ByteBuffer read() {
    Object f;
    try {
      f = frames.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted during a handshake");
    }
    if (f == null) {
      throw new StrataException(
          StatusCode.DEADLINE_EXCEEDED, "no answer to the data connection's handshake in time");
    }
    if (f == CLOSED) {
      throw StrataException.unavailable("the connection closed during its handshake", null);
    }
    return (ByteBuffer) f;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      pending.writeBytes(in);
    } finally {
      in.release();
    }
    while (pending.readableBytes() >= 4) {
      int n = pending.getInt(pending.readerIndex());
      if (n < Frames.HEADER || n > Handshake.MAX_FRAME) {
        frames.add(CLOSED);
        ctx.close();
        return;
      }
      if (pending.readableBytes() < 4 + n) {
        return;
      }
      pending.skipBytes(4);
      byte[] frame = new byte[n];
      pending.readBytes(frame);
      frames.add(ByteBuffer.wrap(frame));
    }
    pending.discardReadBytes();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    frames.add(CLOSED);
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    pending.release();
    pending = Unpooled.EMPTY_BUFFER;
  }
}
