package io.strata.worker.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PaceTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final Pace pace = new Pace(1_000, now::get);

  @Test
  void bytesTakenWaitForThoseBefore_nothingWaitsForAnIdlePast() {
    assertThat(pace.take(500)).isZero();
    assertThat(pace.take(500)).as("half a second of bytes ahead").isEqualTo(500_000_000L);
    assertThat(pace.take(1_000)).isEqualTo(1_000_000_000L);
    now.addAndGet(10_000_000_000L);
    assertThat(pace.take(1)).as("ten idle seconds are not saved up").isZero();
  }

  @Test
  void aNewLimit_countsForWhatIsTakenAfter() {
    assertThat(pace.take(1_000)).isZero();
    pace.setBytesPerSecond(2_000);
    assertThat(pace.take(1_000)).isEqualTo(1_000_000_000L);
    assertThat(pace.take(1)).isEqualTo(1_500_000_000L);
  }
}
