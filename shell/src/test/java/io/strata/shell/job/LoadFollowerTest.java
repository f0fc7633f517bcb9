package io.strata.shell.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadJob;
import org.junit.jupiter.api.Test;

class LoadFollowerTest {
  private static LoadJob job(long bytes, long listed, long files, long filesListed, boolean done) {
    return LoadJob.newBuilder()
        .setId(7)
        .setCounters(
            LoadCounters.newBuilder()
                .setBytes(bytes)
                .setBytesListed(listed)
                .setFiles(files)
                .setFilesListed(filesListed)
                .setFilesFailed(1)
                .setListingDone(done))
        .build();
  }

  @Test
  void whileTheWalkGoesOn_theTotalsGrowAndAreMarked_withoutAnEta() {
    String line = LoadFollower.line(job(512L << 20, 1L << 30, 120, 240, false), 4_000);
    assertThat(line)
        .isEqualTo("load 7: 512.0MiB of 1.0GiB+ (50%), 120 of 240+ files, 1 failed, 128.0MiB/s");
  }

  @Test
  void onceTheWalkEnded_theLineHasItsEta_andNoControlCharacters() {
    String line = LoadFollower.line(job(512L << 20, 1L << 30, 120, 240, true), 4_000);
    assertThat(line)
        .isEqualTo(
            "load 7: 512.0MiB of 1.0GiB (50%), 120 of 240 files, 1 failed, 128.0MiB/s, ETA 4 s")
        .doesNotContain("\r", "\u001b");
  }
}
