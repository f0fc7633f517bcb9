package io.strata.worker.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.worker.TestFiles;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.MemoryKvStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataServiceTest {
  @TempDir Path root;
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final KvStore store = new MemoryKvStore();
  private MetadataService meta;

  @BeforeEach
  void setUp() {
    MetadataCache cache =
        new MetadataCache(1000, Duration.ofSeconds(60), Duration.ofSeconds(5), now::get, store);
    meta = new MetadataService(TestFiles.ufsAt(root), cache, new SimpleMeterRegistry());
  }

  private void advance(Duration d) {
    now.addAndGet(d.toMillis());
  }

  @Test
  void status_isCachedForTheTtl_thenReadAgain() throws Exception {
    Files.writeString(root.resolve("a"), "one");
    FileStatus first = meta.getStatus(StrataPath.of("/a"), -1);
    assertThat(first.getLength()).isEqualTo(3);
    Files.writeString(root.resolve("a"), "three");
    assertThat(meta.getStatus(StrataPath.of("/a"), -1).getLength()).as("still cached").isEqualTo(3);
    assertThat(meta.getStatus(StrataPath.of("/a"), 0).getLength())
        .as("sync forces a look-up")
        .isEqualTo(5);
    Files.writeString(root.resolve("a"), "seven!!");
    advance(Duration.ofSeconds(61));
    assertThat(meta.getStatus(StrataPath.of("/a"), -1).getLength())
        .as("after the TTL")
        .isEqualTo(7);
  }

  @Test
  void persistedEntries_surviveARestart_butNotTheirTtl() throws Exception {
    Files.writeString(root.resolve("kept"), "12345");
    meta.getStatus(StrataPath.of("/kept"), -1);
    Files.writeString(root.resolve("kept"), "1234567");
    MetadataService restarted =
        new MetadataService(
            TestFiles.ufsAt(root),
            new MetadataCache(1000, Duration.ofSeconds(60), Duration.ofSeconds(5), now::get, store),
            new SimpleMeterRegistry());
    assertThat(restarted.getStatus(StrataPath.of("/kept"), -1).getLength())
        .as("from the store")
        .isEqualTo(5);
    advance(Duration.ofSeconds(61));
    assertThat(restarted.getStatus(StrataPath.of("/kept"), -1).getLength()).isEqualTo(7);
  }

  @Test
  void missingPath_isRememberedForTheShorterNegativeTtl() throws Exception {
    assertThatThrownBy(() -> meta.getStatus(StrataPath.of("/late"), -1))
        .hasMessageContaining("does not exist");
    Files.writeString(root.resolve("late"), "x");
    assertThatThrownBy(() -> meta.getStatus(StrataPath.of("/late"), -1))
        .hasMessageContaining("does not exist");
    advance(Duration.ofSeconds(6));
    assertThat(meta.getStatus(StrataPath.of("/late"), -1).getLength()).isEqualTo(1);
  }

  @Test
  void listing_isCached_untilInvalidatedByAChangeToAChild() throws Exception {
    Files.createDirectory(root.resolve("d"));
    Files.writeString(root.resolve("d/x"), "x");
    assertThat(meta.list(StrataPath.of("/d"), -1).children())
        .extracting(FileStatus::getName)
        .containsExactly("x");
    Files.writeString(root.resolve("d/y"), "y");
    assertThat(meta.list(StrataPath.of("/d"), -1).children()).hasSize(1);
    meta.invalidate(StrataPath.of("/d/y"));
    assertThat(meta.list(StrataPath.of("/d"), -1).children())
        .extracting(FileStatus::getName)
        .containsExactly("x", "y");
    assertThat(meta.list(StrataPath.of("/d"), -1).children().get(1).getPath()).isEqualTo("/d/y");
  }

  @Test
  void aListedFile_isAnsweredFromItsFoldersListing_untilEitherIsForgotten() throws Exception {
    Files.createDirectory(root.resolve("d"));
    Files.writeString(root.resolve("d/a"), "one");
    meta.list(StrataPath.of("/d"), -1);
    Files.writeString(root.resolve("d/a"), "three");
    advance(Duration.ofSeconds(20));
    assertThat(meta.statusInMemory(StrataPath.of("/d/a"), -1))
        .as("from the listing's memory, on an event loop")
        .hasValueSatisfying(s -> assertThat(s.getLength()).isEqualTo(3));
    FileStatus listed = meta.getStatus(StrataPath.of("/d/a"), -1);
    assertThat(listed.getLength()).as("no look-up in the UFS").isEqualTo(3);
    assertThat(listed.getFreshForMs()).as("as fresh as the listing").isEqualTo(40_000);
    assertThat(meta.getStatus(StrataPath.of("/d/a"), 10_000).getLength())
        .as("a sync interval the listing is older than")
        .isEqualTo(5);
    Files.writeString(root.resolve("d/a"), "seven!!");
    meta.invalidate(StrataPath.of("/d/a"));
    assertThat(meta.statusInMemory(StrataPath.of("/d/a"), -1)).isEmpty();
    assertThat(meta.getStatus(StrataPath.of("/d/a"), -1).getLength()).isEqualTo(7);
  }

  @Test
  void answers_sayHowMuchLongerTheWorkerWouldServeThem() throws Exception {
    Files.createDirectory(root.resolve("d"));
    Files.writeString(root.resolve("d/a"), "one");
    assertThat(meta.getStatus(StrataPath.of("/d/a"), -1).getFreshForMs()).isEqualTo(60_000);
    assertThat(meta.list(StrataPath.of("/d"), -1).freshForMs()).isEqualTo(60_000);
    advance(Duration.ofSeconds(20));
    assertThat(meta.getStatus(StrataPath.of("/d/a"), -1).getFreshForMs()).isEqualTo(40_000);
    assertThat(meta.statusInMemory(StrataPath.of("/d/a"), -1).orElseThrow().getFreshForMs())
        .isEqualTo(40_000);
    assertThat(meta.list(StrataPath.of("/d"), -1).freshForMs()).isEqualTo(40_000);
    assertThat(meta.getStatus(StrataPath.of("/d/a"), 30_000).getFreshForMs())
        .as("a sync interval shorter than the TTL bounds it")
        .isEqualTo(10_000);
    meta.setTtl(Duration.ZERO, Duration.ZERO);
    assertThat(meta.getStatus(StrataPath.of("/d/a"), -1).getFreshForMs())
        .as("a worker that keeps nothing says so (1 ms), rather than nothing")
        .isEqualTo(1);
  }

  /**
   * Issue 56, listings at any size: a folder longer than the cache holds in memory is read from its
   * store once and kept as rows; its pages come from the rows at their place, every entry once, in
   * the order of the names' bytes, until the TTL or a change to a child.
   */
  @Test
  void aLargeFolder_isReadOnce_andPagedFromItsRows() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MetadataService small =
        new MetadataService(
            TestFiles.ufsAt(root),
            new MetadataCache(
                1000, Duration.ofSeconds(60), Duration.ofSeconds(5), now::get, store, 100),
            registry);
    Path d = Files.createDirectories(root.resolve("big"));
    java.util.List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < 250; i++) {
      // '\u00e9' sorts after 'z' both as UTF-16 and as UTF-8.
      String name = (i % 2 == 0 ? "f" : "\u00e9") + String.format("%03d", i);
      Files.writeString(d.resolve(name), name);
      names.add(name);
    }
    java.util.Collections.sort(names);
    StrataPath big = StrataPath.of("/big");

    java.util.List<String> paged = new java.util.ArrayList<>();
    String after = "";
    while (true) {
      java.util.List<FileStatus> page = small.listPage(big, -1, after, 30).children();
      page.forEach(f -> paged.add(f.getName()));
      if (page.size() < 30) {
        break;
      }
      after = page.get(page.size() - 1).getName();
    }
    assertThat(paged).isEqualTo(names);
    assertThat(
            registry
                .get(io.strata.worker.WorkerMetrics.METADATA_REQUESTS)
                .tag("result", "miss")
                .counter()
                .count())
        .as("the store was listed once for nine pages")
        .isEqualTo(1);
    assertThat(small.list(big, -1).children()).as("whole, from the rows").hasSize(250);
    assertThat(small.listPage(big, -1, "f100", 2).children())
        .extracting(FileStatus::getName)
        .containsExactly("f102", "f104");

    Files.writeString(d.resolve("f999"), "late");
    assertThat(small.listPage(big, -1, "f998", 1).children())
        .extracting(FileStatus::getName)
        .as("still the rows")
        .containsExactly("\u00e9001");
    small.invalidate(StrataPath.of("/big/f999"));
    assertThat(small.listPage(big, -1, "f998", 1).children())
        .extracting(FileStatus::getName)
        .containsExactly("f999");
    Files.delete(d.resolve("f000"));
    advance(Duration.ofSeconds(61));
    assertThat(small.listPage(big, -1, "", 1).children())
        .extracting(FileStatus::getName)
        .as("read again after the TTL")
        .containsExactly("f002");
  }
}
