package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The driver registry as core alone has it: only the local driver on the class path. */
class UfsFactoryTest {
  @Test
  void coreAlone_findsTheLocalDriverByServiceLoader() {
    assertThat(UfsFactory.providers())
        .extracting(UnderFileSystemProvider::name)
        .containsExactly("local");
    assertThat(UfsFactory.find("/data")).map(UnderFileSystemProvider::name).contains("local");
    assertThat(UfsFactory.find("file:///data"))
        .map(UnderFileSystemProvider::name)
        .contains("local");
  }

  @Test
  void aKnownSchemeWithoutItsDriver_failsInOneLineNamingTheDriverAndThoseHere() {
    assertThat(UfsFactory.find("s3://bucket/x")).isEmpty();
    assertThatThrownBy(() -> UfsFactory.open("s3://bucket/x"))
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessage(
            "no under-storage driver for s3:// on this class path: the s3 driver (lib/ufs/s3/) is"
                + " missing; drivers here: local (a local folder or file:///folder)");
    assertThatThrownBy(() -> UfsFactory.normalize("gs://bucket/x"))
        .hasMessageContaining("the hdfs driver (lib/ufs/hdfs/) is missing");
  }

  @Test
  void anUnknownScheme_failsInOneLineNamingTheDriversHere() {
    assertThatThrownBy(() -> UfsFactory.listsFlat("gopher://x/y"))
        .hasMessage(
            "unsupported under-storage 'gopher://x/y': no driver opens gopher://; drivers here:"
                + " local (a local folder or file:///folder)");
    assertThatThrownBy(() -> UfsFactory.open("")).hasMessage("empty under-storage URI");
  }

  @Test
  void theLocalDriver_takesNoOptions() {
    assertThatThrownBy(
            () ->
                UfsFactory.open(
                    "/tmp", Map.of("s3.region", "x"), LocalUnderFileSystem.DEFAULT_TEMP_MAX_AGE))
        .hasMessageContaining("a local folder takes no mount options");
  }
}
