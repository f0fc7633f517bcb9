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
    grants.grant("/a", "v1", grants.mark());
    now.set(999);
    assertThat(grants.holds("/a", "v1")).isTrue();
    assertThat(grants.holds("/b", "v1")).isFalse();
    now.set(1_000);
    assertThat(grants.holds("/a", "v1")).isFalse();
  }

  @Test
  void forgettingAnyMetadata_endsEveryGrant() {
    grants.grant("/a", "v1", grants.mark());
    forgettings.incrementAndGet();
    assertThat(grants.holds("/a", "v1")).isFalse();
    grants.grant("/a", "v1", grants.mark());
    assertThat(grants.holds("/a", "v1")).isTrue();
  }

  @Test
  void aCheckThatRacedAForgetting_grantsNothing() {
    long mark = grants.mark();
    forgettings.incrementAndGet();
    grants.grant("/a", "v1", mark);
    assertThat(grants.holds("/a", "v1")).isFalse();
  }

  @Test
  void pastTheCap_grantsAreFoundAgain() {
    for (int i = 0; i < ReadGrants.MAX; i++) {
      grants.grant("/f" + i, "v1", grants.mark());
    }
    assertThat(grants.holds("/f0", "v1")).isTrue();
    grants.grant("/one-more", "v1", grants.mark());
    assertThat(grants.holds("/f0", "v1")).isFalse();
    assertThat(grants.holds("/one-more", "v1")).isTrue();
  }

  @Test
  void aGrantIsForTheVersionFoundCurrent_anotherIsCheckedAnew() {
    grants.grant("/a", "v2", grants.mark());

    assertThat(grants.holds("/a", "v2")).isTrue();
    assertThat(grants.holds("/a", null)).as("an OPEN takes the current version").isTrue();
    assertThat(grants.holds("/a", "v1")).as("a version cached before").isFalse();
  }
}
