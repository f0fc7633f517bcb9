package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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

  private FileInfo loadStatus(String p) {
    statusCalls.incrementAndGet();
    return file(p);
  }

  private List<FileInfo> loadListing(String p) {
    listCalls.incrementAndGet();
    return List.of(file(p + "/a"), file(p + "/b"));
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
              return List.of(
                  FileInfo.fromProto(
                      FileStatus.newBuilder()
                          .setPath(p + "/a")
                          .setName("a")
                          .setLength(10)
                          .setMode(0644)
                          .setFingerprint("f1")
                          .setListedOnly(true)
                          .build()));
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
}
