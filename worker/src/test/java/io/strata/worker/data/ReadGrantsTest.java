package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadGrantsTest {
  private final AtomicLong forgettings = new AtomicLong();
  private final AtomicLong now = new AtomicLong();
  private final ReadGrants grants = new ReadGrants(forgettings::get, () -> 1_000, now::get);

  @Test
  void aGrantHolds_untilTheStatusItRestsOnIsNoLongerTrusted() {
    grants.grant("/a", grants.mark());
    now.set(999);
    assertThat(grants.holds("/a")).isTrue();
    assertThat(grants.holds("/b")).isFalse();
    now.set(1_000);
    assertThat(grants.holds("/a")).isFalse();
  }

  @Test
  void forgettingAnyMetadata_endsEveryGrant() {
    grants.grant("/a", grants.mark());
    forgettings.incrementAndGet();
    assertThat(grants.holds("/a")).isFalse();
    grants.grant("/a", grants.mark());
    assertThat(grants.holds("/a")).isTrue();
  }

  @Test
  void aCheckThatRacedAForgetting_grantsNothing() {
    long mark = grants.mark();
    forgettings.incrementAndGet();
    grants.grant("/a", mark);
    assertThat(grants.holds("/a")).isFalse();
  }

  @Test
  void pastTheCap_grantsAreFoundAgain() {
    for (int i = 0; i < ReadGrants.MAX; i++) {
      grants.grant("/f" + i, grants.mark());
    }
    assertThat(grants.holds("/f0")).isTrue();
    grants.grant("/one-more", grants.mark());
    assertThat(grants.holds("/f0")).isFalse();
    assertThat(grants.holds("/one-more")).isTrue();
  }
}
