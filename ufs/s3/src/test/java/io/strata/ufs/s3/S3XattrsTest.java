package io.strata.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** Extended attributes in the header s3fs-fuse writes, byte for byte. */
class S3XattrsTest {
  /** s3fs's encoding of user.a = "hello", user.b = "" (worked out from its sources). */
  private static final String S3FS =
      "%7B%22user.a%22%3A%22aGVsbG8%3D%22%2C%22user.b%22%3A%22%22%7D";

  @Test
  void theHeaderS3fsWrites_isReadAndWrittenTheSame() {
    Map<String, byte[]> xattrs = S3Xattrs.of(Map.of("xattr", S3FS));
    assertThat(xattrs).containsOnlyKeys("user.a", "user.b");
    assertThat(new String(xattrs.get("user.a"), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(xattrs.get("user.b")).isEmpty();
    assertThat(S3Xattrs.format(xattrs)).isEqualTo(S3FS);
    assertThat(S3Xattrs.of(Map.of("xattr", S3FS.replace("%7B", "%7b").replace("%3A", "%3a"))))
        .as("lower-case hex")
        .containsKey("user.a");
  }

  @Test
  void settingAndRemoving_keepsTheOtherMetadata_andTheLastRemovalDropsTheHeader() {
    Map<String, String> m = S3Xattrs.with(Map.of("mode", "33188"), "user.k", new byte[] {1, 2});
    assertThat(m).containsEntry("mode", "33188").containsKey("xattr");
    assertThat(S3Xattrs.of(m).get("user.k")).containsExactly(1, 2);
    Map<String, String> none = S3Xattrs.with(m, "user.k", null);
    assertThat(none).containsOnlyKeys("mode");
  }

  @Test
  void aMalformedHeader_readsAsNoAttributes_andNamesS3fsCannotKeep_areRefused() {
    assertThat(S3Xattrs.of(Map.of("xattr", "not json"))).isEmpty();
    assertThat(S3Xattrs.of(Map.of("xattr", "%7B%22user.a%22%3A%22%%%22%7D"))).isEmpty();
    Assertions.assertThatThrownBy(() -> S3Xattrs.with(Map.of(), "user.a,b", new byte[0]))
        .isInstanceOf(StrataException.class);
  }
}
