package io.strata.worker.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.strata.core.net.ConnectionGate;
import io.strata.core.security.Principal;
import io.strata.core.security.Security;
import io.strata.core.security.SecurityMode;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.Handshake;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The server's side of the data plane's {@link Handshake}, first in each connection's pipeline
 * after frame splitting. It answers HELLO and checks AUTH; in TOKEN mode any other frame before a
 * good AUTH is answered UNAUTHENTICATED and the connection closed, so nothing is read, leased or
 * opened for an unknown caller. Once the caller is known (or in NONE mode, at the first request) it
 * leaves the pipeline: requests then cost nothing more.
 */
// Writes and closes: a failed one closes the connection, and nothing else waits for them.
@SuppressWarnings("FutureReturnValueIgnored")
final class Gatekeeper extends ChannelInboundHandlerAdapter {
  /** Who the connection authenticated as (TOKEN mode). */
  static final AttributeKey<Principal> CALLER = AttributeKey.valueOf("strata-caller");

  private static final SecureRandom RANDOM = new SecureRandom();

  private static final Principal NONE_MODE_CALLER =
      new Principal("none", io.strata.core.security.Role.SERVICE);

  /**
   * How long a TOKEN-mode connection has to prove its token. Without it, connections that never
   * authenticate (or trickle a frame in now and then) would hold the port's places for good.
   */
  static final Duration AUTH_DEADLINE = Duration.ofSeconds(10);

  private final Security security;
  private final Clock clock;
  private final Duration deadline;
  private final ConnectionGate.Held held;
  private byte[] nonce;
  private ScheduledFuture<?> timeout;

  Gatekeeper(Security security, Clock clock) {
    this(security, clock, AUTH_DEADLINE, null);
  }

  /**
   * @param held the connection's place in the port's {@link ConnectionGate}, proved here (null: a
   *     connection no gate holds)
   */
  Gatekeeper(Security security, Clock clock, Duration deadline, ConnectionGate.Held held) {
    this.security = security;
    this.clock = clock;
    this.deadline = deadline;
    this.held = held;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (security.mode() != SecurityMode.TOKEN) {
      return;
    }
    timeout =
        ctx.executor()
            .schedule(
                () ->
                    refuse(
                        ctx,
                        0,
                        "no token proved within "
                            + deadline.toSeconds()
                            + " s of connecting: the data port closes the connection"),
                deadline.toMillis(),
                TimeUnit.MILLISECONDS);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (timeout != null) {
      timeout.cancel(false);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    boolean token = security.mode() == SecurityMode.TOKEN;
    if (frame.readableBytes() < Frames.HEADER) {
      ReferenceCountUtil.release(frame);
      ctx.close();
      return;
    }
    byte type = frame.getByte(frame.readerIndex());
    long id = frame.getLong(frame.readerIndex() + 1);
    if (type == Frames.HELLO && id == 0) {
      frame.release();
      if (token) {
        nonce = new byte[Handshake.NONCE];
        RANDOM.nextBytes(nonce);
        ctx.writeAndFlush(Handshake.challenge(ctx.alloc(), nonce));
      } else {
        ctx.writeAndFlush(Handshake.challenge(ctx.alloc(), null));
        trusted(ctx);
      }
    } else if (!token) {
      trusted(ctx);
      ctx.fireChannelRead(frame);
    } else if (type == Frames.AUTH && id == 0 && nonce != null) {
      authenticate(ctx, frame.skipBytes(Frames.HEADER));
    } else {
      frame.release();
      refuse(
          ctx,
          id,
          "the data port needs a token (strata.security.mode=TOKEN): set STRATA_TOKEN or"
              + " strata.security.token.file");
    }
  }

  private void authenticate(ChannelHandlerContext ctx, ByteBuf body) {
    String proof = Handshake.proofIn(body);
    body.release();
    Principal caller;
    try {
      if (proof == null) {
        throw new StrataException(StatusCode.UNAUTHENTICATED, "not a Strata token");
      }
      caller = Tokens.verifyProof(security.secret().orElseThrow(), proof, nonce, clock.instant());
    } catch (StrataException e) {
      refuse(ctx, 0, e.getMessage());
      return;
    }
    nonce = null;
    if (held != null && !held.prove(caller)) {
      ctx.writeAndFlush(
              Frames.end(
                  ctx.alloc(),
                  0,
                  StatusCode.RESOURCE_EXHAUSTED,
                  caller.user()
                      + " holds as many data connections to this worker as allowed"
                      + " (strata.rpc.max.connections.per.user), or users hold every place not kept"
                      + " for the cluster's processes"))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.channel().attr(CALLER).set(caller);
    ctx.writeAndFlush(Frames.end(ctx.alloc(), 0, StatusCode.OK, ""));
    ctx.pipeline().remove(this);
  }

  /** NONE mode: every caller is the cluster's; the connection has proved all it needs to. */
  private void trusted(ChannelHandlerContext ctx) {
    if (held != null) {
      held.prove(NONE_MODE_CALLER);
    }
    ctx.pipeline().remove(this);
  }

  private static void refuse(ChannelHandlerContext ctx, long id, String why) {
    ctx.writeAndFlush(Frames.end(ctx.alloc(), id, StatusCode.UNAUTHENTICATED, why))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
