package io.strata.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UfsOption;
import io.strata.core.ufs.UnderFileSystemProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The S3 driver as the registry finds it: by its jar on the class path, by scheme. */
class S3UnderFileSystemProviderTest {
  @Test
  void theDriversJar_addsTheS3Scheme() {
    assertThat(UfsFactory.providers())
        .extracting(UnderFileSystemProvider::name)
        .containsExactly("local", "s3");
    assertThat(UfsFactory.find("s3://bucket/x")).map(UnderFileSystemProvider::name).contains("s3");
    assertThat(UfsFactory.listsFlat("s3://bucket/x")).isTrue();
    assertThat(UfsFactory.listsFlat("/data")).isFalse();
    assertThat(UfsFactory.normalize("s3://bucket/a/")).isEqualTo("s3://bucket/a");
  }

  @Test
  void itsOptions_areTheOnesItAccepts() {
    List<String> listed =
        UfsFactory.provider("s3://b").options().stream().map(UfsOption::name).toList();
    assertThat(listed).contains(S3Settings.ENDPOINT, S3Settings.SECRET_KEY, S3Settings.PART_SIZE);
    assertThatThrownBy(
            () -> UfsFactory.open("s3://b", Map.of("s3.nope", "1"), Duration.ofMinutes(1)))
        .hasMessage("unknown S3 mount option 's3.nope' (known: " + new TreeSet<>(listed) + ")");
  }

  @Test
  void aSchemeOfTheHdfsDriver_isNotTakenByAnotherDriver() {
    assertThatThrownBy(() -> UfsFactory.open("hdfs://nn:8020/x"))
        .hasMessageContaining("the hdfs driver (lib/ufs/hdfs/) is missing; drivers here: local (")
        .hasMessageContaining("s3 (s3://bucket/prefix)");
  }
}
