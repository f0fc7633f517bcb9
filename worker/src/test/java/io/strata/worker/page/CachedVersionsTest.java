package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.worker.kv.MemoryKvStore;
import org.junit.jupiter.api.Test;

class CachedVersionsTest {
  @Test
  void versionsUnderAUri_areFoundAndForgotten_notThoseOfASiblingWithTheSamePrefix() {
    CachedVersions v = new CachedVersions(new MemoryKvStore());
    v.note("s3://b/data/x", "fp1", 10);
    v.note("s3://b/data/x", "fp2", 20);
    v.note("s3://b/data/sub/y", "fp3", 30);
    v.note("s3://b/database/z", "fp4", 40);
    v.note("s3://b/data/x", "fp1", 10);
    assertThat(v.under("s3://b/data"))
        .extracting(CachedVersions.Version::fingerprint)
        .containsExactlyInAnyOrder("fp1", "fp2", "fp3");
    assertThat(v.under("s3://b/data/x")).hasSize(2);
    v.forget(v.under("s3://b/data"));
    assertThat(v.under("s3://b/data")).isEmpty();
    assertThat(v.under("s3://b/database")).hasSize(1);
    v.note("s3://b/data/x", "fp1", 10);
    assertThat(v.under("s3://b/data")).as("noted again after being forgotten").hasSize(1);
  }
}
