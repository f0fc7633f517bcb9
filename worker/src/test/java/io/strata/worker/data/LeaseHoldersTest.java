package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseHoldersTest {
  private final AtomicLong share = new AtomicLong(2);
  private final LeaseHolders holders = new LeaseHolders(share::get);

  @Test
  void aUserHoldsAtMostItsShare_andAgainWhatItHolds() {
    assertThat(holders.take("uid 1000", "s1", 0, 100)).isTrue();
    assertThat(holders.take("uid 1000", "s2", 0, 100)).isTrue();
    assertThat(holders.take("uid 1000", "s3", 0, 100)).isFalse();
    assertThat(holders.take("uid 1000", "s1", 10, 200)).as("renewing a held segment").isTrue();
    assertThat(holders.take("uid 1001", "s3", 0, 100)).as("another user's share").isTrue();
    assertThat(holders.holding("uid 1000", 10)).isEqualTo(2);
  }

  @Test
  void expiredLeases_freeTheShare_andALargerShareTakesEffectAtOnce() {
    holders.take("uid 1000", "s1", 0, 100);
    holders.take("uid 1000", "s2", 0, 300);
    assertThat(holders.take("uid 1000", "s3", 50, 150)).isFalse();
    assertThat(holders.take("uid 1000", "s3", 100, 200)).as("s1 expired at 100").isTrue();
    share.set(3);
    assertThat(holders.take("uid 1000", "s4", 150, 250)).isTrue();
    assertThat(holders.holding("uid 1000", 400)).isZero();
  }
}
