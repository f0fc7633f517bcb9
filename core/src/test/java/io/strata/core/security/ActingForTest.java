package io.strata.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StrataException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ActingForTest {
  @Test
  void aClaimGoesThroughItsHeaderUnchanged() {
    ActingFor alice = new ActingFor(4001, 4001, List.of(27, 100));
    assertThat(ActingFor.parse(alice.header())).isEqualTo(alice);
    assertThat(ActingFor.parse("0:0:")).isEqualTo(new ActingFor(0, 0, List.of()));
    // The kernel's ids are unsigned: the top of the range survives the trip.
    ActingFor high = new ActingFor(-3, -3, List.of());
    assertThat(high.header()).startsWith("4294967293:");
    assertThat(ActingFor.parse(high.header())).isEqualTo(high);
  }

  @Test
  void aMalformedClaim_isAOneLineRefusal() {
    for (String bad :
        new String[] {
          "", "1:2", "1:2:3:4", "x:2:", "1:-1:", "1:4294967295:", "1:2:3,,4", "1:2:9e9"
        }) {
      assertThatThrownBy(() -> ActingFor.parse(bad))
          .as(bad)
          .isInstanceOf(StrataException.class)
          .hasMessageStartingWith("acting for:")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void aCallActsForTheAccountOnlyWhileItRuns() {
    ActingFor alice = new ActingFor(4001, 4001, List.of());
    assertThat(ActingFor.current()).isNull();
    assertThat(alice.run(() -> ActingFor.current().uid())).isEqualTo(4001);
    assertThatThrownBy(
            () ->
                alice.run(
                    () -> {
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    assertThat(ActingFor.current()).isNull();
  }
}
