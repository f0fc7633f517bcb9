package io.strata.worker.page.whole;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.page.PageId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WholeFileAreaTest {
  private static final int PAGE = 4096;

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  @Test
  void aSealedFile_holdsTheVersionAtItsOwnOffsets_andEndsWhereItEnds() throws Exception {
    byte[] bytes = random(3 * PAGE + 100, 1);
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      WholeFile f = area.seal(key(1), bytes.length, PAGE, pagesOf(bytes)).orElseThrow();

      assertThat(Files.readAllBytes(f.path())).isEqualTo(bytes);
      assertThat(f.pages()).isEqualTo(4);
      assertThat(f.pageLength(3)).isEqualTo(100);
      assertThat(area.find(key(1))).contains(f);
      assertThat(area.used()).isEqualTo(bytes.length);
      assertThat(names(area)).containsExactly(f.path().getFileName().toString());
    }
  }

  /** A worker started with no share for whole files any more removes those it kept before. */
  @Test
  void aFolderWithoutAShareAnyMore_losesItsWholeFilesAndTheirEntries() throws Exception {
    byte[] bytes = random(2 * PAGE, 8);
    try (KvStore index = index()) {
      try (WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
        assertThat(area.seal(key(8), bytes.length, PAGE, pagesOf(bytes))).isPresent();
      }
      Files.write(dir.resolve("whole").resolve(WholeFileArea.name(key(9)) + ".part"), new byte[10]);
      assertThat(index.get(KeyLayout.wholeFileKey(key(8)))).isNotNull();

      WholeFileArea.removeLeftBehind(dir, index, clock::get);
      assertThat(dir.resolve("whole")).doesNotExist();
      assertThat(index.get(KeyLayout.wholeFileKey(key(8)))).isNull();
      // Once gone, nothing is made again.
      WholeFileArea.removeLeftBehind(dir, index, clock::get);
      assertThat(dir.resolve("whole")).doesNotExist();
    }
  }

  @Test
  void aMissingOrShortPage_sealsNothing_andLeavesNothingBehind() throws Exception {
    byte[] bytes = random(3 * PAGE, 2);
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      WholeFileArea.PageSource missing = i -> i == 2 ? null : pagesOf(bytes).page(i);
      assertThat(area.seal(key(2), bytes.length, PAGE, missing)).isEmpty();
      WholeFileArea.PageSource shortPage =
          i -> i == 1 ? Unpooled.wrappedBuffer(bytes, PAGE, 100) : pagesOf(bytes).page(i);
      assertThat(area.seal(key(2), bytes.length, PAGE, shortPage)).isEmpty();

      assertThat(area.find(key(2))).isEmpty();
      assertThat(names(area)).isEmpty();
      assertThat(index.get(KeyLayout.wholeFileKey(key(2)))).isNull();
    }
  }

  @Test
  void afterACrash_aFileTheSyncDidNotCover_isServedOnlyIfEveryPageChecks() throws Exception {
    byte[] intact = random(2 * PAGE, 3);
    byte[] torn = random(2 * PAGE, 4);
    byte[] synced = random(2 * PAGE, 5);
    KvStore index = index();
    WholeFileArea area = WholeFileArea.open(dir, index, clock::get);
    WholeFile s = area.seal(key(5), synced.length, PAGE, pagesOf(synced)).orElseThrow();
    assertThat(area.syncPending()).isEqualTo(1);
    assertThat(area.seal(key(3), intact.length, PAGE, pagesOf(intact))).isPresent();
    WholeFile t = area.seal(key(4), torn.length, PAGE, pagesOf(torn)).orElseThrow();
    // A crash before the next sync: the index made it to disk, the second page of one file did not.
    overwrite(t.path(), PAGE, new byte[PAGE]);
    // And a seal cut short, and a file whose entry was lost.
    Files.write(area.dir().resolve(WholeFileArea.name(key(6)) + ".part"), new byte[10]);
    Files.write(area.dir().resolve(WholeFileArea.name(key(7))), new byte[10]);
    index.close();

    try (KvStore reopened = RocksKvStore.open(dir.resolve("index"), 1 << 20);
        WholeFileArea again = WholeFileArea.open(dir, reopened, clock::get)) {
      assertThat(again.find(key(3)).map(WholeFile::path).map(WholeFileAreaTest::read))
          .contains(intact);
      assertThat(again.find(key(5)).map(WholeFile::path).map(WholeFileAreaTest::read))
          .contains(synced);
      assertThat(again.find(key(4))).isEmpty();
      assertThat(reopened.get(KeyLayout.wholeFileKey(key(4)))).isNull();
      assertThat(names(again))
          .containsExactlyInAnyOrder(WholeFileArea.name(key(3)), WholeFileArea.name(key(5)));
      assertThat(again.used()).isEqualTo(intact.length + synced.length);
      assertThat(s.path()).exists();
    }
  }

  /**
   * A part a stopped writer left under the name a new writer takes is replaced, not appended to.
   */
  @Test
  void aPartLeftBehind_isReplacedByTheNextWriter() throws Exception {
    byte[] bytes = random(2 * PAGE + 7, 11);
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      Path left = area.dir().resolve(WholeFileArea.name(key(8)) + ".part");
      Files.write(left, random(5 * PAGE, 12));
      WholeFile f = area.seal(key(8), bytes.length, PAGE, pagesOf(bytes)).orElseThrow();
      assertThat(read(f.path())).isEqualTo(bytes);
      assertThat(left).doesNotExist();
    }
  }

  @Test
  void theScrub_demotesAFileWhoseBytesChanged() throws Exception {
    byte[] bytes = random(4 * PAGE, 8);
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      WholeFile f = area.seal(key(8), bytes.length, PAGE, pagesOf(bytes)).orElseThrow();
      area.syncPending();
      assertThat(area.verify(key(8))).isTrue();

      overwrite(f.path(), 2 * PAGE + 7, new byte[] {(byte) ~bytes[2 * PAGE + 7]});

      assertThat(area.verify(key(8))).isFalse();
      assertThat(area.find(key(8))).isEmpty();
      assertThat(f.path()).doesNotExist();
      assertThat(index.get(KeyLayout.wholeFileKey(key(8)))).isNull();
      assertThat(area.used()).isZero();
    }
  }

  @Test
  void aLeasedFile_staysUntilItsLeaseEnds_butIsFoundNoMoreOnceRemoved() throws Exception {
    byte[] bytes = random(PAGE, 9);
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      WholeFile f = area.seal(key(9), bytes.length, PAGE, pagesOf(bytes)).orElseThrow();
      assertThat(area.lease(key(9), clock.get() + 1_000)).isTrue();

      assertThat(area.remove(key(9))).isZero();
      assertThat(area.evictTo(0)).isZero();
      assertThat(f.path()).exists();
      assertThat(area.find(key(9))).isEmpty();
      assertThat(area.lease(key(9), clock.get() + 5_000)).isFalse();
      assertThat(area.reap()).isZero();

      clock.addAndGet(1_001);
      assertThat(area.reap()).isEqualTo(bytes.length);
      assertThat(f.path()).doesNotExist();
      assertThat(area.used()).isZero();
    }
  }

  @Test
  void eviction_takesTheLeastRecentlyUsedUnleasedFilesFirst() throws Exception {
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      for (int k = 10; k < 14; k++) {
        assertThat(area.seal(key(k), PAGE, PAGE, pagesOf(random(PAGE, k)))).isPresent();
        clock.addAndGet(10);
      }
      area.find(key(10)); // used last now
      area.lease(key(11), clock.get() + 1_000);

      assertThat(area.evictTo(2L * PAGE)).isEqualTo(2L * PAGE);

      assertThat(area.find(key(12))).isEmpty();
      assertThat(area.find(key(13))).isEmpty();
      assertThat(area.find(key(10))).isPresent();
      assertThat(area.find(key(11))).isPresent();
    }
  }

  @Test
  void anEmptyVersion_isAnEmptyFile() throws Exception {
    try (KvStore index = index();
        WholeFileArea area = WholeFileArea.open(dir, index, clock::get)) {
      WholeFile f = area.seal(key(20), 0, PAGE, i -> null).orElseThrow();
      assertThat(f.pages()).isZero();
      assertThat(Files.size(f.path())).isZero();
      assertThat(area.verify(key(20))).isTrue();
    }
  }

  private static java.util.List<String> names(WholeFileArea area) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.list(area.dir())) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }

  private KvStore index() {
    return RocksKvStore.open(dir.resolve("index"), 1 << 20);
  }

  private static PageId.FileKey key(long n) {
    return new PageId.FileKey(n, ~n);
  }

  private static byte[] random(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** The version's pages as a cache would give them: a buffer per page, the caller's to release. */
  private static WholeFileArea.PageSource pagesOf(byte[] bytes) {
    return i -> {
      int from = Math.toIntExact(i * PAGE);
      if (from >= bytes.length) {
        return null;
      }
      ByteBuf b = Unpooled.directBuffer(PAGE);
      return b.writeBytes(Arrays.copyOfRange(bytes, from, Math.min(bytes.length, from + PAGE)));
    };
  }

  private static void overwrite(Path file, long at, byte[] bytes) throws IOException {
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(bytes), at);
    }
  }

  private static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
