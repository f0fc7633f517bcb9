package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Security;
import io.strata.core.transport.Frames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The data plane's gate in TOKEN mode against random frames and random bytes (issue 25's fuzzing):
 * nothing ever reaches the request decoder without a proof of a token, and no input makes the gate
 * throw.
 */
class GatekeeperFuzzTest {
  private static Path dir;
  private static Security security;

  @BeforeContainer
  static void secret() throws Exception {
    dir = Files.createTempDirectory("gate-fuzz");
    security =
        Security.token(
            ClusterSecret.load(SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER)));
  }

  @AfterContainer
  static void cleanUp() throws Exception {
    Files.deleteIfExists(dir.resolve("secret"));
    Files.deleteIfExists(dir);
  }

  /** A frame as a client could send it: any type, any id, any body. */
  static final class Frame {
    private final byte type;
    private final long id;
    private final byte[] body;

    Frame(byte type, long id, byte[] body) {
      this.type = type;
      this.id = id;
      this.body = body;
    }

    void writeTo(ByteBuf out) {
      out.writeInt(Frames.HEADER + body.length).writeByte(type).writeLong(id).writeBytes(body);
    }
  }

  @Property(tries = 15_000)
  void randomFrames_neverPassTheGate(@ForAll("frames") List<Frame> frames) {
    ByteBuf wire = Unpooled.buffer();
    frames.forEach(f -> f.writeTo(wire));
    assertNothingPasses(wire);
  }

  @Property(tries = 10_000)
  void randomBytes_neverPassTheGate(@ForAll("bytes") byte[] bytes) {
    assertNothingPasses(Unpooled.wrappedBuffer(bytes));
  }

  private static void assertNothingPasses(ByteBuf wire) {
    EmbeddedChannel ch =
        new EmbeddedChannel(
            Frames.requestFrameDecoder(), new Gatekeeper(security, Clock.systemUTC()));
    try {
      ch.writeInbound(wire);
      assertThat(ch.<Object>readInbound()).isNull();
      ch.checkException();
    } catch (io.netty.handler.codec.TooLongFrameException expected) {
      // The frame splitter's own refusal of a length over the bound: the connection ends.
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  @Provide
  Arbitrary<List<Frame>> frames() {
    Arbitrary<Byte> types =
        Arbitraries.oneOf(
            Arbitraries.of(
                Frames.HELLO, Frames.AUTH, Frames.READ, Frames.OPEN, Frames.LEASE, Frames.END),
            Arbitraries.bytes());
    Arbitrary<Long> ids = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs());
    Arbitrary<byte[]> bodies =
        Arbitraries.oneOf(
            Arbitraries.bytes().array(byte[].class).ofMaxSize(120),
            Arbitraries.strings()
                .withChars("st1.ABCDEFabcdef0123456789-_")
                .ofMaxLength(200)
                .map(s -> s.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    return Combinators.combine(types, ids, bodies).as(Frame::new).list().ofMaxSize(6);
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(400);
  }
}
