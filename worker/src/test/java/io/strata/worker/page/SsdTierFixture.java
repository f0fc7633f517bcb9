package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.worker.kv.KvStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/** A tier of small segments in a temporary folder, with a clock the test moves, and its pages. */
abstract class SsdTierFixture {
  static final int PAGE = 4096;
  static final long SEGMENT = 16 * (PAGE + SegmentFormat.HEADER);

  @TempDir Path dir;
  final AtomicLong clock = new AtomicLong(1);
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  SsdTier open(long quota, int readmit, KvStore index) throws IOException {
    return SsdTier.open(
        new SsdLayout(dir, quota, SEGMENT, readmit),
        index,
        PooledByteBufAllocator.DEFAULT,
        clock::incrementAndGet,
        new SimpleMeterRegistry());
  }

  /**
   * Page {@code i}'s bytes, written into the buffer at once: the tests' paranoid leak detection
   * records a stack trace per buffer operation (a byte at a time made some tests take 25 s).
   */
  static ByteBuf page(long i) {
    byte[] bytes = new byte[PAGE];
    for (int k = 0; k < PAGE; k++) {
      bytes[k] = (byte) (i * 31 + k);
    }
    return PooledByteBufAllocator.DEFAULT.directBuffer(PAGE).writeBytes(bytes);
  }

  static PageId id(long i) {
    return new PageId(7, 9, i);
  }

  void write(SsdTier tier, long i) {
    ByteBuf p = page(i);
    try {
      assertThat(tier.write(id(i), p)).isTrue();
    } finally {
      p.release();
    }
  }

  static void assertPage(SsdTier tier, long i) {
    ByteBuf got = tier.read(id(i));
    ByteBuf want = page(i);
    try {
      assertThat(got).as("page %d", i).isNotNull();
      assertThat(ByteBufUtil.getBytes(got)).isEqualTo(ByteBufUtil.getBytes(want));
    } finally {
      if (got != null) {
        got.release();
      }
      want.release();
    }
  }

  List<Path> segmentFiles() throws IOException {
    try (Stream<Path> s = Files.walk(dir.resolve("segments"))) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  long bytesOnDisk() throws IOException {
    long total = 0;
    for (Path p : segmentFiles()) {
      total += Files.size(p);
    }
    return total;
  }
}
