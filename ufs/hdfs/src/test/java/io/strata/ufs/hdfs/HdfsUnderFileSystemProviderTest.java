package io.strata.ufs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UnderFileSystemProvider;
import org.junit.jupiter.api.Test;

/** The HDFS driver as the registry finds it: its own schemes and Hadoop's connectors. */
class HdfsUnderFileSystemProviderTest {
  @Test
  void theDriversJar_addsHadoopsSchemes() {
    assertThat(UfsFactory.providers())
        .extracting(UnderFileSystemProvider::name)
        .containsExactly("local", "hdfs");
    for (String uri : new String[] {"hdfs://nn:8020/x", "webhdfs://nn:9870/x", "viewfs://c/x"}) {
      assertThat(UfsFactory.find(uri)).map(UnderFileSystemProvider::name).contains("hdfs");
    }
    assertThat(UfsFactory.listsFlat("hdfs://nn:8020/x")).isFalse();
  }

  @Test
  void aConnectorNotOnTheClassPath_isNamedAsSuch_andS3IsNotHadoops() {
    assertThatThrownBy(() -> UfsFactory.open("gs://bucket/x"))
        .hasMessage(
            "the hdfs driver finds no client for gs:// on its class path (a Hadoop connector's jar"
                + " goes in lib/ufs/hdfs/)");
    assertThatThrownBy(() -> UfsFactory.open("s3://bucket/x"))
        .hasMessageStartingWith(
            "no under-storage driver for s3:// on this class path: the s3 driver (lib/ufs/s3/) is"
                + " missing");
  }
}
