package io.strata.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class VersionKeyTest {
  @Test
  void theKey_namesTheUri_theFingerprint_andThePageSize() {
    VersionKey k = VersionKey.of("s3://b/a", "etag-1", 1 << 20);
    assertThat(VersionKey.of("s3://b/a", "etag-1", 1 << 20)).isEqualTo(k);
    assertThat(VersionKey.of("s3://b/a", "etag-2", 1 << 20)).isNotEqualTo(k);
    assertThat(VersionKey.of("s3://b/b", "etag-1", 1 << 20)).isNotEqualTo(k);
    assertThat(VersionKey.of("s3://b/a", "etag-1", 4096)).isNotEqualTo(k);
    // Length-prefixed: moving a character from the URI to the fingerprint is another key.
    assertThat(VersionKey.of("s3://b/", "aetag-1", 1 << 20)).isNotEqualTo(k);
  }

  @Test
  void aWholeFile_isNamedByItsKey_inTheFolderItsKeyPicks() {
    VersionKey k = new VersionKey(0x0123456789abcdefL, -2L);
    assertThat(k.name()).isEqualTo("0123456789abcdeffffffffffffffffe");
    List<Path> folders = List.of(Path.of("/a"), Path.of("/b"), Path.of("/c"));
    // floorMod of a negative low: never a negative index.
    assertThat(k.folder(3)).isEqualTo(Math.floorMod(-2L, 3L));
    assertThat(k.wholeFile(folders)).contains(folders.get(k.folder(3)).resolve(k.name()));
    assertThat(k.wholeFile(List.of())).isEmpty();
  }
}
