package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ReadPathTest {
  @Test
  void failover_dropsWhatTheFailedAttemptGathered_soTheNextAttemptsBytesLandInPlace() {
    CompositeByteBuf dst = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(16);
    try {
      dst.addComponent(true, ascii("kept"));
      int start = dst.writerIndex();
      // A worker sent part of the range, then died.
      dst.addComponent(true, ascii("stale-"));
      dst.addComponent(true, ascii("bytes"));

      ReadPath.discardFrom(dst, start);
      dst.addComponent(true, ascii("fresh"));

      assertThat(dst.toString(StandardCharsets.US_ASCII)).isEqualTo("keptfresh");
    } finally {
      dst.release();
    }
  }

  @Test
  void failover_onAPlainBuffer_rewindsItsWriterIndex() {
    ByteBuf dst = Unpooled.buffer(32);
    dst.writeBytes("kept".getBytes(StandardCharsets.US_ASCII));
    dst.writeBytes("stale".getBytes(StandardCharsets.US_ASCII));
    ReadPath.discardFrom(dst, 4);
    dst.writeBytes("fresh".getBytes(StandardCharsets.US_ASCII));
    assertThat(dst.toString(StandardCharsets.US_ASCII)).isEqualTo("keptfresh");
  }

  private static ByteBuf ascii(String s) {
    return Unpooled.directBuffer().writeBytes(s.getBytes(StandardCharsets.US_ASCII));
  }
}
