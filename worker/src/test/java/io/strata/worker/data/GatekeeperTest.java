package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.core.net.ConnectionGate;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Security;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.Handshake;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Response;
import io.strata.core.transport.ResponseDecoder;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data plane's handshake, the client's side ({@link Handshake}) against the server's ({@link
 * Gatekeeper}): in TOKEN mode nothing passes the gate before a proof of a token this cluster
 * signed; in NONE mode everything does, and a client with a token still gets its answer.
 */
class GatekeeperTest {
  @TempDir Path dir;
  private EmbeddedChannel channel;

  @AfterEach
  void tearDown() {
    if (channel != null) {
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void inTokenModeARequestBeforeTheHandshakeIsRefusedAndTheConnectionClosed() throws Exception {
    channel = gate(Security.token(secret("a", SecretFiles.CLUSTER)));
    channel.writeInbound(read(7));
    assertThat(channel.<Object>readInbound()).as("nothing reaches the reader").isNull();
    Response.End end = end(channel.readOutbound());
    assertThat(end.requestId()).isEqualTo(7);
    assertThat(end.code()).isEqualTo(StatusCode.UNAUTHENTICATED);
    assertThat(end.message()).contains("the data port needs a token");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aProofOfTheClustersTokenOpensTheGateForThatCaller() throws Exception {
    ClusterSecret secret = secret("a", SecretFiles.CLUSTER);
    channel = gate(Security.token(secret));
    String token = Tokens.issue(secret, "alice", Role.USER, Instant.now().plusSeconds(60));
    Handshake.authenticate(new Embedded(channel), token);
    assertThat(channel.attr(Gatekeeper.CALLER).get()).isEqualTo(new Principal("alice", Role.USER));
    channel.writeInbound(read(8));
    ByteBuf passed = channel.readInbound();
    assertThat(passed.getByte(passed.readerIndex())).isEqualTo(Frames.READ);
    passed.release();
  }

  @Test
  void forgedExpiredAndReplayedProofsAreRefused() throws Exception {
    ClusterSecret secret = secret("a", SecretFiles.CLUSTER);
    ClusterSecret other = secret("b", SecretFiles.OTHER);
    String forged = Tokens.issue(other, "mallory", Role.SERVICE, Instant.now().plusSeconds(60));
    assertRefused(secret, forged, "signature is not this cluster's");
    String expired = Tokens.issue(secret, "bob", Role.USER, Instant.now().minusSeconds(1));
    assertRefused(secret, expired, "expired");

    // A proof seen on one connection is worth nothing on another: each has its own nonce.
    String token = Tokens.issue(secret, "alice", Role.USER, Instant.now().plusSeconds(60));
    List<ByteBuffer> sent = new ArrayList<>();
    EmbeddedChannel first = gate(Security.token(secret));
    Embedded io = new Embedded(first);
    Handshake.authenticate(
        new Handshake.FrameIo() {
          @Override
          public void write(ByteBuffer frame) {
            sent.add(frame.duplicate());
            io.write(frame);
          }

          @Override
          public ByteBuffer read() {
            return io.read();
          }
        },
        token);
    first.finishAndReleaseAll();
    channel = gate(Security.token(secret));
    channel.writeInbound(Unpooled.wrappedBuffer(sent.get(0).rewind()));
    channel.readOutbound(); // this connection's own challenge
    channel.writeInbound(Unpooled.wrappedBuffer(sent.get(1).rewind()));
    Response.End end = end(channel.readOutbound());
    assertThat(end.code()).isEqualTo(StatusCode.UNAUTHENTICATED);
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void inNoneModeRequestsPassAndAClientWithATokenIsToldNoneIsNeeded() throws Exception {
    channel = gate(Security.none());
    Handshake.authenticate(new Embedded(channel), "st1.whatever.whatever");
    channel.writeInbound(read(9));
    ByteBuf passed = channel.readInbound();
    assertThat(passed.getByte(passed.readerIndex())).isEqualTo(Frames.READ);
    passed.release();

    EmbeddedChannel plain = gate(Security.none());
    plain.writeInbound(read(10));
    ByteBuf direct = plain.readInbound();
    assertThat(direct.getLong(direct.readerIndex() + 1)).isEqualTo(10);
    direct.release();
    plain.finishAndReleaseAll();
  }

  private void assertRefused(ClusterSecret secret, String token, String why) {
    EmbeddedChannel ch = gate(Security.token(secret));
    try {
      assertThatThrownBy(() -> Handshake.authenticate(new Embedded(ch), token))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.UNAUTHENTICATED))
          .hasMessageContaining(why);
      assertThat(ch.isOpen()).isFalse();
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  /** Issue 54: AUTH had no deadline, so connections that never authenticate held the port. */
  @Test
  void aConnectionThatProvesNoTokenInTime_isClosed() throws Exception {
    Security token = Security.token(secret("a", SecretFiles.CLUSTER));
    channel =
        new EmbeddedChannel(
            Frames.requestFrameDecoder(),
            new Gatekeeper(token, Clock.systemUTC(), Duration.ofSeconds(1), null));
    assertThat(channel.isOpen()).isTrue();
    channel.advanceTimeBy(2, TimeUnit.SECONDS);
    channel.runScheduledPendingTasks();
    Response.End end = end(channel.readOutbound());
    assertThat(end.code()).isEqualTo(StatusCode.UNAUTHENTICATED);
    assertThat(end.message()).contains("no token proved within 1 s");
    assertThat(channel.isOpen()).isFalse();
  }

  /**
   * Issue 78, high 7: connections still to authenticate were refused once a quarter of the port
   * waited, so silent ones renewed every 10 s kept every new reader out. Now the oldest gives way.
   */
  @Test
  void connectionsStillToAuthenticate_giveWayToNewerOnes() throws Exception {
    Security token = Security.token(secret("a", SecretFiles.CLUSTER));
    ConnectionGate gate = new ConnectionGate(new ConnectionGate.Limits(8, 2, 2, 8, 0));
    List<EmbeddedChannel> chans = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      EmbeddedChannel ch = new EmbeddedChannel();
      ConnectionGate.Held held =
          gate.admit(
              "127.0.0.2",
              () -> {
                var unused = ch.close();
              });
      var listened = ch.closeFuture().addListener(f -> held.leave());
      assertThat(listened).isNotNull();
      ch.pipeline()
          .addLast(
              Frames.requestFrameDecoder(),
              new Gatekeeper(token, Clock.systemUTC(), Duration.ofSeconds(10), held));
      chans.add(ch);
    }
    assertThat(chans.get(0).isOpen()).as("the oldest, for the third").isFalse();
    assertThat(chans.get(1).isOpen()).isTrue();
    assertThat(chans.get(2).isOpen()).isTrue();
    assertThat(gate.unproven()).isEqualTo(2);
    chans.forEach(EmbeddedChannel::finishAndReleaseAll);
    assertThat(gate.open()).isZero();
  }

  private static EmbeddedChannel gate(Security security) {
    return new EmbeddedChannel(
        Frames.requestFrameDecoder(), new Gatekeeper(security, Clock.systemUTC()));
  }

  private static ByteBuf read(long id) {
    return new ReadRequest(id, "/f", "fp", 10, 0, 10).encode(ByteBufAllocator.DEFAULT);
  }

  private static Response.End end(ByteBuf frame) {
    try {
      return (Response.End) new ResponseDecoder().next(frame);
    } finally {
      frame.release();
    }
  }

  private ClusterSecret secret(String name, String content) {
    return ClusterSecret.load(SecretFiles.write(dir.resolve(name), content));
  }

  /** The client's frames written into the server's pipeline, its answers read back. */
  private record Embedded(EmbeddedChannel ch) implements Handshake.FrameIo {
    @Override
    public void write(ByteBuffer frame) {
      ch.writeInbound(Unpooled.wrappedBuffer(frame));
    }

    @Override
    public ByteBuffer read() {
      ByteBuf b = ch.readOutbound();
      if (b == null) {
        throw StrataException.unavailable("nothing was answered", null);
      }
      ByteBuffer copy = ByteBuffer.allocate(b.readableBytes() - 4);
      b.skipBytes(4).readBytes(copy);
      b.release();
      return copy.flip();
    }
  }
}
