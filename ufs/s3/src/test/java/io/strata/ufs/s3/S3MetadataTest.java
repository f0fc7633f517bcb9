package io.strata.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class S3MetadataTest {
  @Test
  void times_readAsS3fsAndRcloneWriteThem_andWrittenBack() {
    assertThat(S3Metadata.timeNs("1600000000", -1)).isEqualTo(1_600_000_000_000_000_000L);
    assertThat(S3Metadata.timeNs("1600000000.5", -1)).isEqualTo(1_600_000_000_500_000_000L);
    assertThat(S3Metadata.timeNs(" 12.000000001 ", -1)).isEqualTo(12_000_000_001L);
    assertThat(S3Metadata.timeNs("-1.5", -1)).isEqualTo(-1_500_000_000L);
    assertThat(S3Metadata.timeNs("yesterday", -7)).isEqualTo(-7);
    assertThat(S3Metadata.timeNs("1e400", -7)).isEqualTo(-7);
    assertThat(S3Metadata.timeNs(null, -7)).isEqualTo(-7);

    assertThat(S3Metadata.seconds(1_600_000_000_000_000_000L)).isEqualTo("1600000000");
    assertThat(S3Metadata.seconds(12_000_000_001L)).isEqualTo("12.000000001");
    assertThat(S3Metadata.seconds(-1_500_000_000L)).isEqualTo("-1.500000000");
    assertThat(S3Metadata.timeNs(S3Metadata.seconds(-1_500_000_000L), 0))
        .isEqualTo(-1_500_000_000L);
  }
}
