package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.kv.RocksKvStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a restarted or crashed worker finds of its SSD tier. */
class SsdTierRecoveryTest extends SsdTierFixture {
  @Test
  void writeRead_andRestart_keepEveryPage() throws IOException {
    try (SsdTier tier = open(1 << 20, 0, RocksKvStore.open(dir.resolve("index"), 1 << 20))) {
      for (int i = 0; i < 40; i++) {
        write(tier, i);
      }
      assertPage(tier, 17);
    }
    try (SsdTier tier = open(1 << 20, 0, RocksKvStore.open(dir.resolve("index"), 1 << 20))) {
      assertThat(tier.pages()).isEqualTo(40);
      for (int i = 0; i < 40; i++) {
        assertPage(tier, i);
      }
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  @Test
  void aSegmentDroppedWhilePinned_doesNotComeBackAfterACrash() throws IOException {
    KvStore index = new MemoryKvStore();
    SsdTier crashed = open(1 << 20, 0, index);
    for (int i = 0; i < 20; i++) {
      write(crashed, i);
    }
    SsdTier.Pinned pinned = crashed.pin(id(3), clock.get() + 1_000_000).orElseThrow();
    for (int i = 0; i < 16; i++) {
      crashed.remove(id(i));
    }
    assertThat(pinned.segment()).as("kept for the reader while pinned").exists();

    try (SsdTier tier = open(1 << 20, 0, index)) {
      assertThat(pinned.segment()).as("nobody holds the pin after a restart").doesNotExist();
      for (int i = 0; i < 16; i++) {
        assertThat(tier.contains(id(i))).as("removed page %d stays removed", i).isFalse();
      }
      for (int i = 16; i < 20; i++) {
        assertPage(tier, i);
      }
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  /**
   * A client may still map a deleted segment's file and hold a lease naming it: the id (and file
   * name) is never given to a new segment, even after a restart that no longer sees the old one.
   */
  @Test
  void aDeletedNewestSegment_sIdIsNotReused_afterARestart() throws IOException {
    KvStore index = new MemoryKvStore();
    SsdTier crashed = open(1 << 20, 0, index);
    for (int i = 0; i <= 16; i++) {
      write(crashed, i);
    }
    Path newest = crashed.pin(id(16), clock.get()).orElseThrow().segment();
    crashed.remove(id(16));
    assertThat(newest).as("its only page removed, the segment is gone").doesNotExist();

    try (SsdTier tier = open(1 << 20, 0, index)) {
      write(tier, 20);
      Path next = tier.pin(id(20), clock.get()).orElseThrow().segment();
      assertThat(next).isNotEqualTo(newest);
      assertThat(newest).doesNotExist();
      assertPage(tier, 20);
    }
  }

  @Test
  void crash_keepsTheValidPrefixOfTheOpenSegment_cutsATornTail_andRemovesOrphans()
      throws IOException {
    KvStore index = new MemoryKvStore();
    SsdTier crashed = open(1 << 20, 0, index);
    for (int i = 0; i < 20; i++) {
      write(crashed, i);
    }
    crashed.remove(id(3));
    write(crashed, 20);
    // Died mid-append: half a record at the end of the open segment, and a page the index missed.
    Path open = Segment.pathOf(dir, crashed.locate(id(20)).orElseThrow().segment());
    Files.write(open, new byte[] {0x53, 0x54, 0x50, 0x47, 1, 2, 3}, StandardOpenOption.APPEND);
    index.delete(KeyLayout.pageKey(id(20)));
    Path orphan = Segment.pathOf(dir, 999);
    Files.createDirectories(orphan.getParent());
    Files.write(orphan, new byte[100]);

    try (SsdTier tier = open(1 << 20, 0, index)) {
      for (int i = 0; i < 21; i++) {
        if (i == 3) {
          assertThat(tier.contains(id(3))).as("a removed page does not come back").isFalse();
        } else {
          assertPage(tier, i);
        }
      }
      assertThat(orphan).doesNotExist();
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  @Test
  void theOpenSegment_sPagesGetTheirRowsWithItsSeal_andACrashBeforeItLosesNone()
      throws IOException {
    KvStore index = new MemoryKvStore();
    SsdTier crashed = open(1 << 20, 0, index);
    for (int i = 0; i < 20; i++) {
      write(crashed, i);
    }
    long first = crashed.locate(id(0)).orElseThrow().segment();
    assertThat(crashed.locate(id(19)).orElseThrow().segment()).isNotEqualTo(first);
    assertThat(index.get(KeyLayout.pageKey(id(15))))
        .as("a sealed segment's pages have their rows")
        .isNotNull();
    assertThat(index.get(KeyLayout.pageKey(id(19))))
        .as("the open segment's wait for its seal")
        .isNull();

    // Died without closing: the open segment is read back record by record.
    try (SsdTier tier = open(1 << 20, 0, index)) {
      assertThat(tier.pages()).isEqualTo(20);
      for (int i = 0; i < 20; i++) {
        assertPage(tier, i);
      }
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
      assertThat(index.get(KeyLayout.pageKey(id(19))))
          .as("indexed by the recovery, which sealed the segment")
          .isNotNull();
    }
  }

  @Test
  void writersFillTheirPlacesSideBySide_andEveryPageReadsBackAndSurvivesARestart()
      throws Exception {
    int threads = 4;
    int each = 200;
    KvStore index = RocksKvStore.open(dir.resolve("index"), 1 << 20);
    try (SsdTier tier = open(1L << 30, 0, index)) {
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads);
      try {
        List<java.util.concurrent.Future<?>> writers = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int first = t * each;
          writers.add(
              pool.submit(
                  () -> {
                    for (int i = first; i < first + each; i++) {
                      write(tier, i);
                    }
                  }));
        }
        for (java.util.concurrent.Future<?> w : writers) {
          w.get();
        }
      } finally {
        pool.shutdownNow();
      }
      for (int i = 0; i < threads * each; i++) {
        assertPage(tier, i);
      }
    }
    try (SsdTier tier = open(1L << 30, 0, RocksKvStore.open(dir.resolve("index"), 1 << 20))) {
      assertThat(tier.pages()).isEqualTo((long) threads * each);
      assertPage(tier, 0);
      assertPage(tier, threads * each - 1);
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  /**
   * Two writing threads append to segment files of their own (the file system would make them take
   * turns in one); a load's mark keeps both; a crash with both open keeps every page of each.
   */
  @Test
  void writingThreads_appendToSegmentsOfTheirOwn_andACrashKeepsBoth() throws Exception {
    KvStore index = new MemoryKvStore();
    SsdTier crashed = open(1 << 20, 0, index);
    long markBefore = crashed.mark();
    for (int first : new int[] {0, 100}) {
      Thread writer =
          new Thread(
              () -> {
                for (int i = first; i < first + 5; i++) {
                  write(crashed, i);
                }
              });
      writer.start();
      writer.join();
    }
    long a = crashed.locate(id(0)).orElseThrow().segment();
    long b = crashed.locate(id(100)).orElseThrow().segment();
    assertThat(a).as("the second thread's segment").isNotEqualTo(b);
    assertThat(crashed.locate(id(4)).orElseThrow().segment()).isEqualTo(a);
    assertThat(crashed.mark()).isEqualTo(Math.min(a, b)).isEqualTo(markBefore);

    try (SsdTier tier = open(1 << 20, 0, index)) {
      for (int i = 0; i < 5; i++) {
        assertPage(tier, i);
        assertPage(tier, 100 + i);
      }
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  /**
   * A writer killed between taking its place and filling it leaves zeros there: recovery cuts the
   * open segment at that place, losing the records after it, and serves no wrong byte.
   */
  @Test
  void aPlaceAKilledWriterLeftUnfilled_cutsTheOpenSegmentThere() throws IOException {
    KvStore index = new MemoryKvStore();
    SsdTier crashed = open(1 << 20, 0, index);
    for (int i = 0; i < 10; i++) {
      write(crashed, i);
    }
    PageLocation hole = crashed.locate(id(4)).orElseThrow();
    Path open = Segment.pathOf(dir, hole.segment());
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(open, StandardOpenOption.WRITE)) {
      ch.write(
          java.nio.ByteBuffer.allocate(SegmentFormat.HEADER + PAGE),
          hole.offset() - SegmentFormat.HEADER);
    }
    try (SsdTier tier = open(1 << 20, 0, index)) {
      for (int i = 0; i < 10; i++) {
        if (i < 4) {
          assertPage(tier, i);
        } else {
          assertThat(tier.read(id(i))).as("page %d, at or after the hole", i).isNull();
        }
      }
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  @Test
  void aMillionPages_allComeBackAfterARestart() throws IOException {
    // Not followed by the tests' paranoid leak detection, which would record a stack trace at each
    // of the million writes (25 s of this test's 27).
    ByteBuf tiny = new UnpooledByteBufAllocator(true, true).directBuffer(64).writeZero(64);
    long pages = 1_000_000;
    try (SsdTier tier =
        SsdTier.open(
            new SsdLayout(dir, 256L << 20, 16L << 20, 0),
            RocksKvStore.open(dir.resolve("index"), 8 << 20),
            PooledByteBufAllocator.DEFAULT,
            clock::incrementAndGet,
            registry)) {
      for (long i = 0; i < pages; i++) {
        assertThat(tier.write(new PageId(3, 4, i), tiny)).isTrue();
      }
    } finally {
      tiny.release();
    }
    try (SsdTier tier =
        SsdTier.open(
            new SsdLayout(dir, 256L << 20, 16L << 20, 0),
            RocksKvStore.open(dir.resolve("index"), 8 << 20),
            PooledByteBufAllocator.DEFAULT,
            clock::incrementAndGet,
            new SimpleMeterRegistry())) {
      assertThat(tier.pages()).isEqualTo(pages);
      ByteBuf last = tier.read(new PageId(3, 4, pages - 1));
      assertThat(last.readableBytes()).isEqualTo(64);
      last.release();
    }
  }
}
