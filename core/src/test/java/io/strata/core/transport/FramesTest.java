package io.strata.core.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.strata.core.status.StatusCode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FramesTest {
  private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;

  @Test
  void readRequest_roundTripsThroughTheFrameDecoder() {
    ReadRequest req = new ReadRequest(7, "/data/é x", "123:456:(ino=9)", 10_000, 4096, 8192);
    EmbeddedChannel ch = new EmbeddedChannel(Frames.requestFrameDecoder());
    ByteBuf wire = req.encode(alloc);
    // Split across two writes: the decoder must reassemble.
    ch.writeInbound(wire.readRetainedSlice(5), wire.readRetainedSlice(wire.readableBytes()));
    wire.release();
    ByteBuf frame = ch.readInbound();
    try {
      assertThat(Request.decode(frame)).isEqualTo(req);
    } finally {
      frame.release();
    }
    Object left = ch.readInbound();
    assertThat(left).isNull();
    ch.finishAndReleaseAll();
  }

  @Test
  void decode_refusesTruncatedWrongTypeAndOutOfBoundsRequests() {
    ByteBuf full = new ReadRequest(1, "/a", "f", 10, 0, 10).encode(alloc);
    ByteBuf body = full.slice(4, full.readableBytes() - 4);
    assertThatThrownBy(() -> ReadRequest.decode(body.slice(0, body.readableBytes() - 3)))
        .isInstanceOf(MalformedFrameException.class);
    ByteBuf wrongType = body.copy();
    wrongType.setByte(0, 99);
    assertThatThrownBy(() -> Request.decode(wrongType)).hasMessageContaining("type 99");
    assertThatThrownBy(() -> ReadRequest.decode(wrongType.resetReaderIndex()))
        .isInstanceOf(MalformedFrameException.class);
    ByteBuf negative = new ReadRequest(1, "/a", "f", 10, -5, 10).encode(alloc);
    assertThatThrownBy(() -> ReadRequest.decode(negative.skipBytes(4)))
        .hasMessageContaining("out of bounds");
    full.release();
    wrongType.release();
    negative.release();
  }

  /** A WHOLE names its whole file: a frame naming part of one is malformed. */
  @Test
  void whole_roundTrips_andAFrameNamingPartOfTheFileIsRefused() {
    WholeRequest whole = new WholeRequest(4, "/big", "f", 10L << 30);
    ByteBuf wire = whole.encode(alloc);
    assertThat(Request.decode(wire.skipBytes(4))).isEqualTo(whole);
    wire.release();
    ByteBuf part = new FileRange(4, "/big", "f", 10L << 30, 0, 1 << 20).encode(alloc, Frames.WHOLE);
    assertThatThrownBy(() -> Request.decode(part.skipBytes(4)))
        .isInstanceOf(MalformedFrameException.class)
        .hasMessageContaining("whole file");
    part.release();
  }

  @Test
  void lease_mayNameASpanLongerThanAnyRead_andItsGrantRoundTrips() {
    LeaseRequest lease = new LeaseRequest(3, "/big", "f", 10L << 30, 0, 1L << 30);
    ByteBuf wire = lease.encode(alloc);
    assertThat(Request.decode(wire.skipBytes(4))).isEqualTo(lease);
    wire.release();
    ByteBuf read = new ReadRequest(3, "/big", "f", 10L << 30, 0, 1L << 30).encode(alloc);
    assertThatThrownBy(() -> ReadRequest.decode(read.skipBytes(4)))
        .hasMessageContaining("out of bounds");
    read.release();

    LeaseGrant grant =
        new LeaseGrant(
            30_000,
            1 << 20,
            java.util.List.of("/ssd/seg-1", "/ssd/seg-2"),
            java.util.List.of(
                new LeaseGrant.Page(0, 0, 36, 1 << 20, 7),
                new LeaseGrant.Page(5, 1, 1_048_648, 100, -3)));
    ByteBuf frame = grant.encode(alloc, 9);
    assertThat(frame.readInt()).isEqualTo(frame.readableBytes());
    assertThat(frame.readByte()).isEqualTo(Frames.LEASED);
    assertThat(frame.readLong()).isEqualTo(9);
    assertThat(LeaseGrant.decode(frame)).isEqualTo(grant);
    frame.release();
  }

  @Test
  void leaseGrant_namingAMissingSegmentOrAnOversizedPage_isMalformed() {
    LeaseGrant bad =
        new LeaseGrant(
            30_000,
            4096,
            java.util.List.of("/s"),
            java.util.List.of(new LeaseGrant.Page(0, 1, 0, 10, 0)));
    ByteBuf frame = bad.encode(alloc, 1).skipBytes(4 + Frames.HEADER);
    assertThatThrownBy(() -> LeaseGrant.decode(frame)).isInstanceOf(MalformedFrameException.class);
    frame.release();
    LeaseGrant big =
        new LeaseGrant(
            30_000,
            4096,
            java.util.List.of("/s"),
            java.util.List.of(new LeaseGrant.Page(0, 0, 0, 8192, 0)));
    ByteBuf frame2 = big.encode(alloc, 1).skipBytes(4 + Frames.HEADER);
    assertThatThrownBy(() -> LeaseGrant.decode(frame2)).hasMessageContaining("out of bounds");
    frame2.release();
  }

  @Test
  void oversizedFrame_failsTheDecoder() {
    EmbeddedChannel ch = new EmbeddedChannel(Frames.requestFrameDecoder());
    ByteBuf huge =
        Unpooled.buffer().writeInt(Frames.MAX_REQUEST_FRAME * 2).writeBytes(new byte[64]);
    assertThatThrownBy(() -> ch.writeInbound(huge)).isInstanceOf(TooLongFrameException.class);
    ch.finishAndReleaseAll();
  }

  @Test
  void endFrame_carriesCodeAndMessage() {
    ByteBuf end = Frames.end(alloc, 42, StatusCode.NOT_FOUND, "/x does not exist");
    assertThat(end.readInt()).isEqualTo(end.readableBytes());
    assertThat(end.readByte()).isEqualTo(Frames.END);
    assertThat(end.readLong()).isEqualTo(42);
    assertThat(StatusCode.fromNumber(end.readUnsignedByte())).isEqualTo(StatusCode.NOT_FOUND);
    int n = end.readUnsignedShort();
    assertThat(end.readCharSequence(n, StandardCharsets.UTF_8).toString())
        .isEqualTo("/x does not exist");
    end.release();
  }

  @Test
  void statusCodes_haveUniqueStableNumbers() {
    for (StatusCode c : StatusCode.values()) {
      assertThat(StatusCode.fromNumber(c.number())).isEqualTo(c);
    }
    assertThat(StatusCode.fromNumber(999)).isEqualTo(StatusCode.INTERNAL);
  }
}
