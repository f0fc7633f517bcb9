package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.kv.RocksKvStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class SsdTierTest extends SsdTierFixture {
  /**
   * A quota larger than the disk (here a disk of six segments under a quota of a hundred): the
   * tier's capacity is what the disk can hold, less a segment kept free, and it evicts rather than
   * fill the disk.
   */
  @Test
  void aDiskSmallerThanTheQuota_boundsTheTier_whichEvictsInsteadOfFillingIt() throws IOException {
    try (SsdTier tier = onDisk(6 * SEGMENT, () -> 0, clock::incrementAndGet)) {
      assertThat(tier.capacity()).isEqualTo(5 * SEGMENT);
      for (long i = 0; i < 200; i++) {
        write(tier, i);
        assertThat(bytesOnDisk()).isLessThanOrEqualTo(5 * SEGMENT);
      }
      assertThat(tier.pages()).isBetween(60L, 80L);
      assertPage(tier, 199);
    }
  }

  /**
   * What the folder holds besides segments (whole files, a part being written) is its own when the
   * disk is asked: the segments' capacity plus it is what the disk holds for the cache, also once
   * it shrank before the disk is asked again (a failed seal's part deleted: its room was not lost).
   */
  @Test
  void whatTheFolderHoldsBesidesSegments_isCountedAsItsOwnRoom() throws IOException {
    AtomicLong others = new AtomicLong(3 * SEGMENT);
    try (SsdTier tier = onDisk(10 * SEGMENT, others::get, () -> 0L)) {
      tier.besides(others::get);
      // One segment of the disk stays free.
      assertThat(tier.capacity() + tier.besidesBytes()).isEqualTo(9 * SEGMENT);
      others.set(0);
      assertThat(tier.capacity() + tier.besidesBytes()).isEqualTo(9 * SEGMENT);
      others.set(5 * SEGMENT);
      assertThat(tier.capacity()).isEqualTo(4 * SEGMENT);
    }
  }

  /**
   * A tier under a quota of a hundred segments on a disk of {@code disk} bytes, of which {@code
   * others} hold files besides the tier's segments.
   */
  private SsdTier onDisk(long disk, LongSupplier others, LongSupplier nanoTime) throws IOException {
    AtomicReference<SsdTier> opened = new AtomicReference<>();
    SsdTier tier =
        SsdTier.open(
            new SsdLayout(dir, 100 * SEGMENT, SEGMENT, 0),
            RocksKvStore.open(dir.resolve("index"), 1 << 20),
            PooledByteBufAllocator.DEFAULT,
            nanoTime,
            new SimpleMeterRegistry(),
            () -> disk - others.getAsLong() - (opened.get() == null ? 0 : opened.get().used()));
    opened.set(tier);
    return tier;
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
