package io.strata.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedSegmentTest {
  @TempDir Path dir;

  private final byte[] data = new byte[1 << 20];

  MappedSegmentTest() {
    new Random(11).nextBytes(data);
  }

  private MappedSegment segment() throws Exception {
    Path file = dir.resolve("segment-1");
    Files.write(file, data);
    return MappedSegment.open(file);
  }

  @Test
  void copiesAndChecksumsWhatItMapped_intoHeapAndDirectBuffers() throws Exception {
    MappedSegment seg = segment();
    assertThat(seg.covers(data.length - 10, 10)).isTrue();
    assertThat(seg.covers(data.length - 10, 11)).as("appended after the mapping").isFalse();

    byte[] heap = new byte[5000];
    ByteBuffer dst = ByteBuffer.wrap(heap, 100, 4000);
    assertThat(seg.copy(70_000, dst)).isTrue();
    assertThat(dst.position()).as("the caller moves it").isEqualTo(100);
    assertThat(Arrays.copyOfRange(heap, 100, 4100))
        .isEqualTo(Arrays.copyOfRange(data, 70_000, 74_000));

    ByteBuffer direct = ByteBuffer.allocateDirect(4096);
    assertThat(seg.copy(0, direct)).isTrue();
    byte[] got = new byte[4096];
    direct.get(got);
    assertThat(got).isEqualTo(Arrays.copyOf(data, 4096));

    CRC32C crc = new CRC32C();
    crc.update(data, 8192, 65536);
    assertThat(seg.crc32c(8192, 65536)).isEqualTo((int) crc.getValue());
    seg.retire();
  }

  @Test
  void aRetiredSegment_readsNothing() throws Exception {
    MappedSegment seg = segment();
    seg.retire();
    seg.retire();
    assertThat(seg.copy(0, ByteBuffer.allocate(10))).isFalse();
    assertThat(seg.crc32c(0, 10)).isNull();
  }

  @Test
  void retiringWhileOthersRead_neverUnmapsUnderAReader() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 20; round++) {
        MappedSegment seg = segment();
        List<Future<Integer>> readers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int seed = round * 10 + t;
          readers.add(
              pool.submit(
                  () -> {
                    Random r = new Random(seed);
                    int good = 0;
                    for (int i = 0; i < 2000; i++) {
                      int at = r.nextInt(data.length - 65536);
                      byte[] b = new byte[65536];
                      if (!seg.copy(at, ByteBuffer.wrap(b))) {
                        break;
                      }
                      assertThat(b).isEqualTo(Arrays.copyOfRange(data, at, at + b.length));
                      good++;
                    }
                    return good;
                  }));
        }
        Thread.sleep(round % 3);
        seg.retire();
        for (Future<Integer> f : readers) {
          assertThat(f.get(30, TimeUnit.SECONDS)).isNotNegative();
        }
        assertThat(seg.copy(0, ByteBuffer.allocate(1))).isFalse();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
