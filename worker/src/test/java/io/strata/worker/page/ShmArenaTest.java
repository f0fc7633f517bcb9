package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.strata.worker.TestFiles;
import io.strata.worker.WorkerMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShmArenaTest {
  private static final int SLOT = 64 << 10;
  private static final Path SHM = Path.of("/dev/shm");

  @BeforeEach
  void needsShm() {
    assumeTrue(Files.isDirectory(SHM), "needs /dev/shm (a tmpfs)");
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] drain(FileRegion region) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WritableByteChannel sink = Channels.newChannel(out);
    while (region.transferred() < region.count()) {
      region.transferTo(sink, region.transferred());
    }
    return out.toByteArray();
  }

  /**
   * sendfile hands the socket references to the file's memory: a slot freed once its page was sent,
   * then written with the next page, used to give the receiver, still to read, the next page's
   * bytes (over TCP on loopback, as here, and over a unix socket).
   */
  @Test
  void aPageSentThenFreed_reachesTheReceiverAsItWas_thoughItsSlotIsWrittenAgain()
      throws IOException {
    try (ShmArena arena = ShmArena.open(SHM, SLOT, false);
        java.nio.channels.ServerSocketChannel server =
            java.nio.channels.ServerSocketChannel.open()) {
      server.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
      try (java.nio.channels.SocketChannel sender =
              java.nio.channels.SocketChannel.open(server.getLocalAddress());
          java.nio.channels.SocketChannel receiver = server.accept()) {
        byte[] first = random(SLOT, 7);
        ByteBuf page = arena.copyOf(Unpooled.wrappedBuffer(first));
        // A page above it stays: the file is not cut back, which would drop the slot's memory.
        ByteBuf above = arena.copyOf(Unpooled.wrappedBuffer(random(SLOT, 9)));
        FileRegion region = ShmArena.region(page, 0, SLOT);
        while (region.transferred() < region.count()) {
          region.transferTo(sender, region.transferred());
        }
        region.release();
        page.release();
        // The lowest free slot: the one just freed.
        ByteBuf next = arena.copyOf(Unpooled.wrappedBuffer(random(SLOT, 8)));

        java.nio.ByteBuffer got = java.nio.ByteBuffer.allocate(SLOT);
        while (got.hasRemaining()) {
          receiver.read(got);
        }
        assertThat(got.array()).isEqualTo(first);
        next.release();
        above.release();
      }
    }
  }

  @Test
  void aPageReadsBackThroughItsMappingAndASendfileRegion() throws IOException {
    try (ShmArena arena = ShmArena.open(SHM, SLOT, false)) {
      byte[] bytes = random(SLOT, 1);
      ByteBuf page = arena.copyOf(Unpooled.wrappedBuffer(bytes));
      assertThat(ByteBufUtil.getBytes(page)).isEqualTo(bytes);

      ByteBuf held = page.retainedDuplicate();
      assertThat(ShmArena.holds(held)).isTrue();
      FileRegion region = ShmArena.region(held, 100, 5000);
      assertThat(drain(region)).isEqualTo(Arrays.copyOfRange(bytes, 100, 5100));
      region.release();
      held.release();

      assertThatThrownBy(() -> ShmArena.region(page, SLOT - 10, 11))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(ShmArena.holds(Unpooled.wrappedBuffer(bytes))).isFalse();
      page.release();
      assertThat(arena.slotsUsed()).isZero();
    }
  }

  @Test
  void aSlotStaysTakenWhileARegionCutFromItIsUnsent_andIsReusedAfter() throws IOException {
    try (ShmArena arena = ShmArena.open(SHM, SLOT, false)) {
      ByteBuf first = arena.copyOf(Unpooled.wrappedBuffer(random(SLOT, 2)));
      FileRegion unsent = ShmArena.region(first, 0, SLOT);
      first.release();
      assertThat(arena.slotsUsed()).as("the region holds the page").isEqualTo(1);

      byte[] other = random(SLOT, 3);
      ByteBuf second = arena.copyOf(Unpooled.wrappedBuffer(other));
      assertThat(arena.slotsUsed()).isEqualTo(2);
      assertThat(drain(unsent)).isEqualTo(random(SLOT, 2));
      unsent.release();
      assertThat(arena.slotsUsed()).isEqualTo(1);

      ByteBuf third = arena.copyOf(Unpooled.wrappedBuffer(random(SLOT, 4)));
      assertThat(arena.fileBytes()).as("the freed lowest slot is taken again").isEqualTo(64 << 20);
      assertThat(ByteBufUtil.getBytes(second)).isEqualTo(other);
      second.release();
      third.release();
    }
  }

  @Test
  void fullTwoMiBStretchesGoIntoHugePages_andEveryPageReadsBackTheSame() throws IOException {
    try (ShmArena arena = ShmArena.open(SHM, SLOT, true)) {
      int perStretch = (2 << 20) / SLOT;
      List<ByteBuf> pages = new ArrayList<>();
      for (int i = 0; i < 2 * perStretch + 3; i++) {
        pages.add(arena.copyOf(Unpooled.wrappedBuffer(random(SLOT, 100 + i))));
      }
      assumeTrue(
          arena.hugeBytes() > 0,
          "the kernel put no stretch in a huge page (MADV_COLLAPSE needs Linux 6.1+, and shared"
              + " memory's transparent huge pages not set to deny)");
      assertThat(arena.hugeBytes()).as("two full stretches, not the third").isEqualTo(4L << 20);
      for (int i = 0; i < pages.size(); i++) {
        assertThat(ByteBufUtil.getBytes(pages.get(i))).isEqualTo(random(SLOT, 100 + i));
      }
      FileRegion region = ShmArena.region(pages.get(perStretch + 1), 10, SLOT - 10);
      assertThat(drain(region))
          .isEqualTo(Arrays.copyOfRange(random(SLOT, 100 + perStretch + 1), 10, SLOT));
      region.release();

      // A slot freed inside a huge page is written again in place.
      pages.remove(5).release();
      ByteBuf again = arena.copyOf(Unpooled.wrappedBuffer(random(SLOT, 99)));
      assertThat(ByteBufUtil.getBytes(again)).isEqualTo(random(SLOT, 99));
      assertThat(arena.hugeBytes()).isEqualTo(4L << 20);
      again.release();
      pages.forEach(ByteBuf::release);
    }
  }

  @Test
  void theFileIsCutBackWhenItsTopFallsFree() {
    try (ShmArena arena = ShmArena.open(SHM, SLOT, true)) {
      int count = 2 * (64 << 20) / SLOT;
      List<ByteBuf> pages = new ArrayList<>();
      ByteBuf src = Unpooled.wrappedBuffer(random(SLOT, 5));
      for (int i = 0; i < count; i++) {
        pages.add(arena.copyOf(src.duplicate()));
      }
      assertThat(arena.fileBytes()).isEqualTo(128L << 20);
      for (int i = count - 1; i >= 0; i--) {
        pages.get(i).release();
      }
      assertThat(arena.slotsUsed()).isZero();
      assertThat(arena.fileBytes()).isLessThan(64L << 20);
      assertThat(arena.hugeBytes()).as("stretches cut off are no longer counted").isZero();

      ByteBuf again = arena.copyOf(src.duplicate());
      assertThat(ByteBufUtil.getBytes(again)).isEqualTo(random(SLOT, 5));
      again.release();
    }
  }

  @Test
  void onlyWholePagesTakeSlots() {
    try (ShmArena arena = ShmArena.open(SHM, SLOT, false)) {
      ByteBuf tail = Unpooled.wrappedBuffer(random(100, 6));
      assertThat(arena.fits(tail)).isFalse();
      assertThatThrownBy(() -> arena.copyOf(tail)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aFolderThatCannotHoldTheFile_leavesPagesInDirectMemory(@TempDir Path dir) {
    assertThat(ShmArena.open(dir.resolve("missing"), SLOT, true)).isNull();
  }

  @Test
  void aWholePageMovesIntoTheArenaWhenSettled_aFilesShorterLastPageStaysInDirectMemory() {
    int page = 1 << 20;
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (PageStore store = TestFiles.pageStore(8L << 20, registry)) {
      PageId whole = new PageId(1, 2, 0);
      PageId tail = new PageId(1, 2, 1);
      byte[] bytes = random(page, 7);
      ByteBuf read = Unpooled.directBuffer(page).writeBytes(bytes);
      assertThat(store.admit(whole, read, true)).isTrue();
      read.release();
      ByteBuf shortRead = Unpooled.wrappedBuffer(random(1000, 8));
      assertThat(store.admit(tail, shortRead, true)).isTrue();

      ByteBuf admitted = store.getFromMemory(whole);
      assertThat(ShmArena.holds(admitted)).as("admitting costs no copy").isFalse();
      assertThat(store.settleDue(whole, admitted)).as("not on the first read").isFalse();
      assertThat(store.settleDue(whole, admitted)).as("on the second").isTrue();
      admitted.release();
      store.settle(whole);
      ByteBuf settled = store.getFromMemory(whole);
      assertThat(ShmArena.holds(settled)).isTrue();
      assertThat(registry.get(WorkerMetrics.MEM_SHARED_BYTES).gauge().value())
          .isGreaterThanOrEqualTo(page);
      assertThat(store.settleDue(whole, settled)).isFalse();
      assertThat(store.settleDue(whole, settled)).isFalse();
      assertThat(ByteBufUtil.getBytes(settled)).isEqualTo(bytes);
      settled.release();

      ByteBuf cachedTail = store.getFromMemory(tail);
      assertThat(store.settleDue(tail, cachedTail)).isFalse();
      assertThat(store.settleDue(tail, cachedTail)).isFalse();
      store.settle(tail);
      assertThat(ShmArena.holds(cachedTail)).isFalse();
      assertThat(ByteBufUtil.getBytes(cachedTail)).isEqualTo(random(1000, 8));
      cachedTail.release();
    }
  }
}
