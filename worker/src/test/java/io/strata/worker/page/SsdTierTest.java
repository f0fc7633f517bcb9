package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.kv.RocksKvStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SsdTierTest {
  private static final int PAGE = 4096;
  private static final long SEGMENT = 16 * (PAGE + SegmentFormat.HEADER);

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private SsdTier open(long quota, int readmit, KvStore index) throws IOException {
    return SsdTier.open(
        new SsdLayout(dir, quota, SEGMENT, readmit),
        index,
        PooledByteBufAllocator.DEFAULT,
        clock::incrementAndGet,
        new SimpleMeterRegistry());
  }

  private static ByteBuf page(long i) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(PAGE);
    for (int k = 0; k < PAGE; k++) {
      b.writeByte((int) (i * 31 + k));
    }
    return b;
  }

  private static PageId id(long i) {
    return new PageId(7, 9, i);
  }

  private void write(SsdTier tier, long i) {
    ByteBuf p = page(i);
    try {
      assertThat(tier.write(id(i), p)).isTrue();
    } finally {
      p.release();
    }
  }

  private static void assertPage(SsdTier tier, long i) {
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

  private List<Path> segmentFiles() throws IOException {
    try (Stream<Path> s = Files.walk(dir.resolve("segments"))) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  private long bytesOnDisk() throws IOException {
    long total = 0;
    for (Path p : segmentFiles()) {
      total += Files.size(p);
    }
    return total;
  }

  /**
   * A quota larger than the disk (here a disk of six segments under a quota of a hundred): the
   * tier's capacity is what the disk can hold, less a segment kept free, and it evicts rather than
   * fill the disk.
   */
  @Test
  void aDiskSmallerThanTheQuota_boundsTheTier_whichEvictsInsteadOfFillingIt() throws IOException {
    long disk = 6 * SEGMENT;
    java.util.concurrent.atomic.AtomicReference<SsdTier> opened =
        new java.util.concurrent.atomic.AtomicReference<>();
    try (SsdTier tier =
        SsdTier.open(
            new SsdLayout(dir, 100 * SEGMENT, SEGMENT, 0),
            RocksKvStore.open(dir.resolve("index"), 1 << 20),
            PooledByteBufAllocator.DEFAULT,
            clock::incrementAndGet,
            new SimpleMeterRegistry(),
            () -> disk - (opened.get() == null ? 0 : opened.get().used()))) {
      opened.set(tier);
      assertThat(tier.capacity()).isEqualTo(5 * SEGMENT);
      for (long i = 0; i < 200; i++) {
        write(tier, i);
        assertThat(bytesOnDisk()).isLessThanOrEqualTo(5 * SEGMENT);
      }
      assertThat(tier.pages()).isBetween(60L, 80L);
      assertPage(tier, 199);
    }
  }

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
  void corruptByte_failsTheChecksum_andThePageIsDropped() throws IOException {
    try (SsdTier tier = open(1 << 20, 0, new MemoryKvStore())) {
      write(tier, 1);
      write(tier, 2);
      PageLocation loc = tier.locate(id(2)).orElseThrow();
      try (RandomAccessFile f =
          new RandomAccessFile(Segment.pathOf(dir, loc.segment()).toFile(), "rw")) {
        f.seek(loc.offset() + 100);
        int b = f.read();
        f.seek(loc.offset() + 100);
        f.write(b ^ 0xFF);
      }
      assertThat(tier.read(id(2))).isNull();
      assertThat(tier.contains(id(2))).isFalse();
      assertThat(tier.metrics().checksumFailures.count()).isEqualTo(1);
      assertPage(tier, 1);
    }
  }

  @Test
  void aPageIsSentFromItsFile_onlyOnceVerified_andStillAfterItsSegmentIsDeleted() throws Exception {
    try (SsdTier tier = open(1 << 20, 0, new MemoryKvStore())) {
      for (int i = 0; i < 17; i++) {
        write(tier, i);
      }
      assertThat(tier.diskPage(id(3))).as("never read back: its checksum is unchecked").isNull();
      assertPage(tier, 3);
      DiskPage sent = tier.diskPage(id(3));
      assertThat(sent).isNotNull();
      FileRegion region = sent.region(0, PAGE);
      Path segment = Segment.pathOf(dir, tier.locate(id(3)).orElseThrow().segment());
      for (int i = 0; i < 16; i++) {
        tier.remove(id(i));
      }
      assertThat(segment).as("its last page gone, the sealed segment is deleted").doesNotExist();
      assertThat(tier.diskPage(id(3))).isNull();

      ByteBuf copy = sent.copy(PooledByteBufAllocator.DEFAULT, 0, PAGE);
      ByteBuf want = page(3);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      WritableByteChannel sink = Channels.newChannel(out);
      while (region.transferred() < region.count()) {
        region.transferTo(sink, region.transferred());
      }
      assertThat(out.toByteArray())
          .as("sent from the unlinked file")
          .isEqualTo(ByteBufUtil.getBytes(want));
      assertThat(ByteBufUtil.getBytes(copy)).isEqualTo(ByteBufUtil.getBytes(want));
      copy.release();
      want.release();
      assertThat(openDescriptorsOf(segment)).as("held by the page and its region").isEqualTo(1);
      sent.release();
      assertThat(openDescriptorsOf(segment)).isEqualTo(1);
      region.release();
      assertThat(openDescriptorsOf(segment)).as("closed with the last reference").isZero();
    }
  }

  private static long openDescriptorsOf(Path file) throws IOException {
    String deleted = file.toString() + " (deleted)";
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(
              fd -> {
                try {
                  return Files.readSymbolicLink(fd).toString().equals(deleted);
                } catch (IOException e) {
                  return false;
                }
              })
          .count();
    }
  }

  @Test
  void quota_evictsWholeColdestSegments_andUsedMatchesTheDisk() throws IOException {
    long quota = 4 * SEGMENT;
    try (SsdTier tier = open(quota, 0, new MemoryKvStore())) {
      for (int i = 0; i < 16 * 12; i++) {
        write(tier, i);
        if (i % 16 == 3) {
          assertPage(tier, 0);
        }
        assertThat(tier.used()).isLessThanOrEqualTo(quota);
      }
      assertThat(tier.contains(id(0))).as("read often, its segment stays").isTrue();
      assertThat(tier.contains(id(20))).as("never read again, evicted").isFalse();
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
      assertThat(segmentFiles()).hasSizeLessThanOrEqualTo(4);
    }
  }

  @Test
  void pinnedSegment_isNotEvicted_andOutlivesItsPagesUntilThePinExpires() throws IOException {
    long quota = 3 * SEGMENT;
    try (SsdTier tier = open(quota, 0, new MemoryKvStore())) {
      for (int i = 0; i < 16; i++) {
        write(tier, i);
      }
      SsdTier.Pinned pinned = tier.pin(id(3), clock.get() + 1_000_000).orElseThrow();
      assertThat(pinned.location()).isEqualTo(tier.locate(id(3)).orElseThrow());
      for (int i = 16; i < 16 * 6; i++) {
        write(tier, i);
        assertThat(tier.used()).isLessThanOrEqualTo(quota);
      }
      assertThat(tier.contains(id(3))).as("its segment was pinned, others were evicted").isTrue();
      assertThat(tier.contains(id(20))).isFalse();

      tier.remove(id(3));
      for (int i = 0; i < 16; i++) {
        tier.remove(id(i));
      }
      assertThat(Files.exists(pinned.segment())).as("a leased file stays while pinned").isTrue();
      assertThat(tier.used()).isEqualTo(bytesOnDisk());

      clock.addAndGet(2_000_000);
      write(tier, 1000);
      assertThat(Files.exists(pinned.segment())).as("deleted once the pin expired").isFalse();
      assertThat(tier.used()).isEqualTo(bytesOnDisk());
    }
  }

  @Test
  void retiredSegments_goEachWhenItsOwnPinRunsOut() throws IOException {
    try (SsdTier tier = open(4 * SEGMENT, 0, new MemoryKvStore())) {
      for (int i = 0; i < 40; i++) {
        write(tier, i);
      }
      SsdTier.Pinned early = tier.pin(id(3), clock.get() + 1_000_000).orElseThrow();
      SsdTier.Pinned late = tier.pin(id(20), clock.get() + 3_000_000).orElseThrow();
      assertThat(late.segment()).isNotEqualTo(early.segment());
      for (int i = 0; i < 40; i++) {
        tier.remove(id(i));
      }
      assertThat(Files.exists(early.segment())).isTrue();
      assertThat(Files.exists(late.segment())).isTrue();

      clock.addAndGet(2_000_000);
      write(tier, 1000);
      assertThat(Files.exists(early.segment())).as("its pin ran out").isFalse();
      assertThat(Files.exists(late.segment())).as("its pin runs still").isTrue();

      clock.addAndGet(2_000_000);
      write(tier, 1001);
      assertThat(Files.exists(late.segment())).isFalse();
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
  void readmission_keepsHotPagesOfAnEvictedSegment() throws IOException {
    try (SsdTier tier = open(3 * SEGMENT, 25, new MemoryKvStore())) {
      for (int i = 0; i < 16; i++) {
        write(tier, i);
      }
      assertPage(tier, 5);
      // The fourth segment needs the first one's room: it goes, its one read page is written again.
      for (int i = 16; i < 16 * 3 + 1; i++) {
        write(tier, i);
      }
      assertThat(tier.contains(id(6))).isFalse();
      assertThat(tier.contains(id(5))).isTrue();
      assertThat(tier.locate(id(5)).orElseThrow().segment()).isEqualTo(3);
      assertPage(tier, 5);
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
  void unwritableFolder_refusesWrites_withoutFailing() throws IOException {
    Files.writeString(dir.resolve("segments"), "not a folder");
    try (SsdTier tier = open(1 << 20, 0, new MemoryKvStore())) {
      ByteBuf p = page(1);
      assertThat(tier.write(id(1), p)).isFalse();
      assertThat(tier.write(id(2), p)).isFalse();
      p.release();
      assertThat(tier.read(id(1))).isNull();
    }
  }

  @Test
  void aMillionPages_allComeBackAfterARestart() throws IOException {
    ByteBuf tiny = PooledByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
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

  @Test
  void metricsAreRegisteredPerFolder() throws IOException {
    try (SsdTier tier =
        SsdTier.open(
            new SsdLayout(dir, 1 << 20, SEGMENT, 0),
            new MemoryKvStore(),
            PooledByteBufAllocator.DEFAULT,
            clock::incrementAndGet,
            registry)) {
      write(tier, 1);
      assertThat(
              registry.get(WorkerMetrics.CACHE_BYTES_WRITTEN).tag("tier", "SSD").counter().count())
          .isEqualTo(PAGE + SegmentFormat.HEADER);
    }
  }
}
