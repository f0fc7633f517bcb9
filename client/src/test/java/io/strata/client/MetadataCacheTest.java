package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MetadataCacheTest {
  private final AtomicInteger statusCalls = new AtomicInteger();
  private final AtomicInteger listCalls = new AtomicInteger();

  private static FileInfo file(String path) {
    return new FileInfo(
        path,
        path.substring(path.lastIndexOf('/') + 1),
        false,
        10,
        0,
        0644,
        "u",
        "g",
        "f1",
        "/ufs" + path,
        0);
  }

  private MetadataCache.Fresh<FileInfo> loadStatus(String p) {
    statusCalls.incrementAndGet();
    return MetadataCache.Fresh.unsaid(file(p));
  }

  private MetadataCache.Fresh<List<FileInfo>> loadListing(String p) {
    listCalls.incrementAndGet();
    return MetadataCache.Fresh.unsaid(List.of(file(p + "/a"), file(p + "/b")));
  }

  /** A status its worker would serve for {@code freshForMs} more. */
  private MetadataCache.Fresh<FileInfo> freshFor(String p, long freshForMs) {
    statusCalls.incrementAndGet();
    return new MetadataCache.Fresh<>(file(p), freshForMs);
  }

  @Test
  void keepsStatusesAndListingsUntilAChangeDropsThem() {
    MetadataCache cache = new MetadataCache(Duration.ofMinutes(1), 1000);
    cache.status("/d/x", this::loadStatus);
    cache.status("/d/x", this::loadStatus);
    assertThat(statusCalls).hasValue(1);

    assertThat(cache.list("/d", this::loadListing)).hasSize(2);
    cache.list("/d", this::loadListing);
    cache.status("/d/a", this::loadStatus);
    assertThat(listCalls).hasValue(1);
    assertThat(statusCalls).as("a listing fills its children's statuses").hasValue(1);

    cache.status("/d", this::loadStatus);
    assertThat(statusCalls).hasValue(2);
    cache.invalidate(StrataPath.of("/d/a"));
    cache.status("/d/a", this::loadStatus);
    cache.list("/d", this::loadListing);
    assertThat(statusCalls).hasValue(3);
    assertThat(listCalls).as("a change drops the parent's listing").hasValue(2);
    cache.status("/d", this::loadStatus);
    assertThat(statusCalls).as("and the parent's status: its times changed").hasValue(4);

    cache.invalidateTree(StrataPath.of("/d"));
    cache.status("/d/b", this::loadStatus);
    assertThat(statusCalls).hasValue(5);
  }

  @Test
  void entriesListedWithoutTheirAttributes_areLookedUpAlone() {
    MetadataCache cache = new MetadataCache(Duration.ofMinutes(1), 1000);
    List<FileInfo> listed =
        cache.list(
            "/s3",
            p -> {
              listCalls.incrementAndGet();
              return MetadataCache.Fresh.unsaid(
                  List.of(
                      FileInfo.fromProto(
                          FileStatus.newBuilder()
                              .setPath(p + "/a")
                              .setName("a")
                              .setLength(10)
                              .setMode(0644)
                              .setFingerprint("f1")
                              .setListedOnly(true)
                              .build())));
            });
    assertThat(listed).extracting(FileInfo::name).containsExactly("a");
    cache.status("/s3/a", this::loadStatus);
    assertThat(statusCalls).as("an S3 listing's defaults are not the file's mode").hasValue(1);
    cache.list("/s3", this::loadListing);
    assertThat(listCalls).as("the listing itself is kept").hasValue(1);
  }

  @Test
  void aZeroTtlAsksEveryTime() {
    MetadataCache cache = new MetadataCache(Duration.ZERO, 1000);
    cache.status("/d/x", this::loadStatus);
    cache.status("/d/x", this::loadStatus);
    cache.list("/d", this::loadListing);
    cache.list("/d", this::loadListing);
    cache.status("/d/a", this::loadStatus);
    cache.invalidate(StrataPath.of("/d/x"));
    cache.invalidateTree(StrataPath.of("/d"));
    assertThat(statusCalls).hasValue(3);
    assertThat(listCalls).hasValue(2);
  }

  private final AtomicLong nanos = new AtomicLong();

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void unwatched_keepsAnEntryNoLongerThanItsTtlNorItsWorker() {
    MetadataCache cache = new MetadataCache(Duration.ofSeconds(2), 1000, nanos::get);
    cache.status("/short", p -> freshFor(p, 500));
    cache.status("/long", p -> freshFor(p, 60_000));
    advance(Duration.ofMillis(600));
    cache.status("/short", p -> freshFor(p, 500));
    cache.status("/long", p -> freshFor(p, 60_000));
    assertThat(statusCalls).as("the worker's 0.5 s ended; the client's 2 s did not").hasValue(3);
    advance(Duration.ofMillis(1500));
    cache.status("/long", p -> freshFor(p, 60_000));
    assertThat(statusCalls).as("unwatched, the client's TTL bounds it").hasValue(4);
  }

  @Test
  void watched_keepsAnEntryAsLongAsItsWorkerWould_untilAWorkerDropsIt() {
    MetadataCache cache = new MetadataCache(Duration.ofSeconds(2), 1000, nanos::get);
    cache.watchedBy(() -> true);
    cache.status("/d/a", p -> freshFor(p, 60_000));
    cache.list("/d", p -> new MetadataCache.Fresh<>(List.of(file("/d/b"), file("/d/c")), 30_000));
    advance(Duration.ofSeconds(29));
    cache.status("/d/a", this::loadStatus);
    cache.status("/d/b", this::loadStatus);
    assertThat(statusCalls).as("both kept past the client's 2 s").hasValue(1);

    cache.dropped(List.of("/d/b"), false);
    cache.status("/d/b", this::loadStatus);
    cache.status("/d/a", this::loadStatus);
    assertThat(statusCalls).as("only what the worker dropped is asked again").hasValue(2);

    cache.dropped(List.of("/d"), true);
    cache.status("/d/a", this::loadStatus);
    assertThat(statusCalls).as("a recursive drop takes what is below").hasValue(3);

    cache.status("/e", p -> freshFor(p, 60_000));
    cache.droppedAll();
    cache.status("/e", this::loadStatus);
    assertThat(statusCalls).hasValue(5);
  }

  @Test
  void watched_butUnhealthy_keepsNoLongerThanTheClientsTtl() {
    MetadataCache cache = new MetadataCache(Duration.ofSeconds(2), 1000, nanos::get);
    cache.watchedBy(() -> false);
    cache.status("/a", p -> freshFor(p, 60_000));
    advance(Duration.ofSeconds(3));
    cache.status("/a", p -> freshFor(p, 60_000));
    assertThat(statusCalls).hasValue(2);
  }

  @Test
  void anAnswerFetchedWhileAWorkerDroppedSomething_isNotKept() {
    MetadataCache cache = new MetadataCache(Duration.ofSeconds(2), 1000, nanos::get);
    cache.watchedBy(() -> true);
    cache.status(
        "/a",
        p -> {
          // The event may be about this very file: the answer in flight may predate its change.
          cache.dropped(List.of("/a"), false);
          return freshFor(p, 60_000);
        });
    cache.status("/a", p -> freshFor(p, 60_000));
    assertThat(statusCalls).hasValue(2);
    MetadataCache.Token before = cache.token();
    cache.droppedAll();
    cache.remember(before, freshFor("/b", 60_000));
    cache.status("/b", this::loadStatus);
    assertThat(statusCalls).as("an open's status is kept under the same rule").hasValue(4);
  }

  @Test
  void keptUntilDropped_outlivesItsWorkersTtl_butNotADrop() {
    MetadataCache cache = new MetadataCache(Duration.ofSeconds(2), 1000, nanos::get);
    cache.keepUntilDropped();
    cache.status("/a", p -> freshFor(p, 500));
    advance(Duration.ofHours(1));
    cache.status("/a", this::loadStatus);
    assertThat(statusCalls).as("an immutable data set is not asked again").hasValue(1);
    cache.dropped(List.of("/a"), false);
    cache.status("/a", this::loadStatus);
    assertThat(statusCalls).as("fs invalidate still reaches it").hasValue(2);
  }
}
