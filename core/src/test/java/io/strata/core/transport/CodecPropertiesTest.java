package io.strata.core.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Both data-plane decoders against generated input: whatever the bytes, a request or an answer
 * comes out, or a {@link MalformedFrameException}; never another exception, and the response
 * decoder never holds more than its bound.
 */
class CodecPropertiesTest {
  private static final ByteBufAllocator ALLOC = Unpooled.buffer().alloc();

  // ---- requests ----

  @Property
  void anyFrame_decodesToARequest_orIsMalformed(@ForAll @Size(max = 300) byte[] frame) {
    ByteBuf b = Unpooled.wrappedBuffer(frame);
    try {
      Request r = Request.decode(b);
      assertThat(r).isNotNull();
    } catch (MalformedFrameException expected) {
      // a clean refusal
    }
  }

  @Property
  void aRequestWithAKnownType_butAnyBody_decodesOrIsMalformed(
      @ForAll("requestTypes") byte type,
      @ForAll long requestId,
      @ForAll @Size(max = 200) byte[] body) {
    ByteBuf b = Unpooled.buffer().writeByte(type).writeLong(requestId).writeBytes(body);
    try {
      assertThat(Request.decode(b).requestId()).isEqualTo(requestId);
    } catch (MalformedFrameException expected) {
      // a clean refusal
    }
  }

  @Property
  void everyRequest_roundTrips_andAnyCutOfItIsMalformed(
      @ForAll("requests") Request request, @ForAll @IntRange(min = 1, max = 1000) int cut) {
    ByteBuf wire = request.encode(ALLOC);
    try {
      ByteBuf frame = wire.skipBytes(4);
      assertThat(Request.decode(frame.duplicate())).isEqualTo(request);
      int keep = frame.readableBytes() - Math.min(cut, frame.readableBytes());
      assertThatThrownBy(() -> Request.decode(frame.slice(frame.readerIndex(), keep)))
          .isInstanceOf(MalformedFrameException.class);
    } finally {
      wire.release();
    }
  }

  @Provide
  Arbitrary<Byte> requestTypes() {
    return Arbitraries.of(Frames.READ, Frames.OPEN, Frames.LEASE);
  }

  @Provide
  Arbitrary<Request> requests() {
    Arbitrary<String> paths = Arbitraries.strings().ofMaxLength(40).map(s -> "/" + s);
    Arbitrary<Long> sizes = Arbitraries.longs().between(0, 1L << 40);
    Arbitrary<ReadRequest> reads =
        Combinators.combine(
                Arbitraries.longs(),
                paths,
                Arbitraries.strings().ofMaxLength(30),
                sizes,
                sizes,
                Arbitraries.longs().between(0, Frames.MAX_READ_LENGTH))
            .as(ReadRequest::new);
    Arbitrary<LeaseRequest> leases =
        Combinators.combine(
                Arbitraries.longs(),
                paths,
                Arbitraries.strings().ofMaxLength(30),
                sizes,
                sizes,
                sizes)
            .as(LeaseRequest::new);
    Arbitrary<OpenRequest> opens =
        Combinators.combine(
                Arbitraries.longs(),
                paths,
                Arbitraries.longs().between(-1, 1L << 40),
                Arbitraries.longs().between(0, Frames.MAX_READ_LENGTH))
            .as(OpenRequest::new);
    Arbitrary<WholeRequest> wholes =
        Combinators.combine(
                Arbitraries.longs(), paths, Arbitraries.strings().ofMaxLength(30), sizes)
            .as(WholeRequest::new);
    return Arbitraries.oneOf(reads, leases, opens, wholes);
  }

  // ---- answers ----

  @Property
  void anyBytes_inAnyPieces_giveFramesOrAMalformedFrame_withinTheBound(
      @ForAll @Size(max = 2000) byte[] bytes, @ForAll @IntRange(min = 1, max = 64) int piece) {
    ResponseDecoder decoder = new ResponseDecoder();
    try {
      feed(decoder, bytes, piece, new ArrayList<>());
    } catch (MalformedFrameException expected) {
      // a clean refusal
    }
    assertThat(decoder.heldCapacity()).isLessThanOrEqualTo(ResponseDecoder.MAX_HELD);
  }

  @Property
  void validAnswers_decodeToWhatWasSent_whateverThePieces(
      @ForAll("answers") List<Sent> answers, @ForAll @IntRange(min = 1, max = 5000) int piece) {
    byte[] wire = encode(answers);
    List<Object> got = new ArrayList<>();
    ResponseDecoder decoder = new ResponseDecoder();
    feed(decoder, wire, piece, got);
    assertThat(got).containsExactlyElementsOf(expected(answers));
    assertThat(decoder.needed()).as("nothing left half read").isEqualTo(4 + Frames.HEADER);
  }

  @Property
  void validAnswers_readAsABlockingReaderDoes_exactlyWhatIsNeeded(
      @ForAll("answers") List<Sent> answers) {
    ByteBuf wire = Unpooled.wrappedBuffer(encode(answers));
    List<Object> got = new ArrayList<>();
    ResponseDecoder decoder = new ResponseDecoder();
    while (wire.isReadable()) {
      if (decoder.payloadLeft() > 0) {
        int n = decoder.payloadLeft();
        got.add(new Payload(bytes(wire.readSlice(n))));
        decoder.payloadTaken(n);
        continue;
      }
      Response r = decoder.next(wire.readSlice(decoder.needed()));
      if (r != null) {
        got.add(r);
        if (r instanceof Response.Data d && d.length() == 0) {
          got.add(new Payload(List.of()));
        }
      }
    }
    assertThat(got).containsExactlyElementsOf(expected(answers));
  }

  @Property
  void aCutOrAChangedByte_givesAPrefixOfTheAnswersOrAMalformedFrame(
      @ForAll("answers") List<Sent> answers,
      @ForAll @IntRange(min = 0, max = 100_000) int where,
      @ForAll byte value,
      @ForAll boolean cut,
      @ForAll @IntRange(min = 1, max = 700) int piece) {
    byte[] wire = encode(answers);
    if (wire.length == 0) {
      return;
    }
    int at = where % wire.length;
    byte[] damaged = cut ? java.util.Arrays.copyOf(wire, at) : wire.clone();
    if (!cut) {
      damaged[at] = value;
    }
    ResponseDecoder decoder = new ResponseDecoder();
    try {
      feed(decoder, damaged, piece, new ArrayList<>());
    } catch (MalformedFrameException expected) {
      // a clean refusal
    }
    assertThat(decoder.heldCapacity()).isLessThanOrEqualTo(ResponseDecoder.MAX_HELD);
  }

  @Property(tries = 50)
  void aHeaderClaimingAHugeBody_isRefusedBeforeAnythingIsHeld(
      @ForAll("answerTypes") byte type, @ForAll @IntRange(min = 2_000_000) int length) {
    ResponseDecoder decoder = new ResponseDecoder();
    ByteBuf header = Unpooled.buffer().writeInt(length).writeByte(type).writeLong(1);
    assertThatThrownBy(() -> decoder.next(header)).isInstanceOf(MalformedFrameException.class);
    assertThat(decoder.heldCapacity()).isLessThan(64);
  }

  @Provide
  Arbitrary<Byte> answerTypes() {
    return Arbitraries.of(Frames.DATA, Frames.END, Frames.STATUS, Frames.LEASED);
  }

  /** One answer frame as sent: a Response, with a DATA frame's payload. */
  @SuppressWarnings("ArrayRecordComponent") // compared through its parts, never by equals
  record Sent(Response frame, byte[] payload) {}

  /** A DATA payload as the reader took it. */
  record Payload(List<Byte> bytes) {}

  @Provide
  Arbitrary<List<Sent>> answers() {
    Arbitrary<Long> ids = Arbitraries.longs();
    Arbitrary<Sent> data =
        Combinators.combine(
                ids,
                Arbitraries.longs().between(0, 1L << 40),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(3000))
            .as(
                (id, offset, payload) ->
                    new Sent(new Response.Data(id, offset, payload.length), payload));
    Arbitrary<Sent> ends =
        Combinators.combine(
                ids,
                Arbitraries.of(StatusCode.class),
                Arbitraries.strings().withCharRange('a', 'z').ofMaxLength(200))
            .as((id, code, message) -> new Sent(new Response.End(id, code, message), null));
    Arbitrary<Sent> statuses =
        Combinators.combine(ids, Arbitraries.strings().ofMaxLength(100), Arbitraries.longs())
            .as(
                (id, path, length) ->
                    new Sent(
                        new Response.Status(
                            id,
                            FileStatus.newBuilder()
                                .setPath("/" + path)
                                .setLength(length)
                                .setFingerprint("fp")
                                .build()),
                        null));
    Arbitrary<Sent> leases =
        Combinators.combine(ids, Arbitraries.integers().between(0, 20))
            .as(
                (id, n) -> {
                  List<LeaseGrant.Page> pages = new ArrayList<>();
                  for (int i = 0; i < n; i++) {
                    pages.add(new LeaseGrant.Page(i, 0, 64L * i, 4096, i * 31));
                  }
                  return new Sent(
                      new Response.Leased(
                          id, new LeaseGrant(30_000, 4096, List.of("/ssd/seg-" + n), pages)),
                      null);
                });
    return Arbitraries.oneOf(data, ends, statuses, leases).list().ofMaxSize(12);
  }

  /**
   * Feeds {@code bytes} in pieces, taking DATA payloads as a reader would; what came out goes to
   * {@code got}.
   */
  private static void feed(ResponseDecoder decoder, byte[] bytes, int piece, List<Object> got) {
    List<Byte> payload = new ArrayList<>();
    for (int from = 0; from < bytes.length; from += piece) {
      ByteBuf in = Unpooled.wrappedBuffer(bytes, from, Math.min(piece, bytes.length - from));
      while (in.isReadable()) {
        if (decoder.payloadLeft() > 0) {
          int n = Math.min(decoder.payloadLeft(), in.readableBytes());
          payload.addAll(bytes(in.readSlice(n)));
          decoder.payloadTaken(n);
          if (decoder.payloadLeft() == 0) {
            got.add(new Payload(List.copyOf(payload)));
            payload.clear();
          }
          continue;
        }
        Response r = decoder.next(in);
        if (r == null) {
          break;
        }
        got.add(r);
        if (r instanceof Response.Data d && d.length() == 0) {
          got.add(new Payload(List.of()));
        }
      }
    }
  }

  private static byte[] encode(List<Sent> answers) {
    ByteBuf out = Unpooled.buffer();
    for (Sent s : answers) {
      ByteBuf frame;
      if (s.frame() instanceof Response.Data d) {
        frame = Frames.dataHeader(ALLOC, d.requestId(), d.offset(), d.length());
        frame.writeBytes(s.payload());
      } else if (s.frame() instanceof Response.End e) {
        frame = Frames.end(ALLOC, e.requestId(), e.code(), e.message());
      } else if (s.frame() instanceof Response.Status st) {
        frame = Frames.status(ALLOC, st.requestId(), st.status().toByteArray());
      } else {
        Response.Leased l = (Response.Leased) s.frame();
        frame = l.grant().encode(ALLOC, l.requestId());
      }
      out.writeBytes(frame);
      frame.release();
    }
    return ByteBufUtil.getBytes(out);
  }

  private static List<Object> expected(List<Sent> answers) {
    List<Object> out = new ArrayList<>();
    for (Sent s : answers) {
      out.add(s.frame());
      if (s.payload() != null) {
        List<Byte> b = new ArrayList<>();
        for (byte x : s.payload()) {
          b.add(x);
        }
        out.add(new Payload(b));
      }
    }
    return out;
  }

  private static List<Byte> bytes(ByteBuf b) {
    List<Byte> out = new ArrayList<>(b.readableBytes());
    while (b.isReadable()) {
      out.add(b.readByte());
    }
    return out;
  }
}
