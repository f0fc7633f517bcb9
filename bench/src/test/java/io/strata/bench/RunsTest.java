package io.strata.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RunsTest {
  /** The run numbers a measurement goes through, warm-ups below 0. */
  private static List<Integer> runs(Runs.Rounds rounds, int timed) {
    List<Integer> seen = new ArrayList<>();
    for (int run = rounds.first(); run < timed; run = rounds.next(run)) {
      seen.add(run);
    }
    return seen;
  }

  @Test
  void quietCompilers_leaveTheWarmUpsAtTheMinimum() {
    Runs.Rounds rounds = new Runs.Rounds("t", 3, 40, () -> 1000);
    assertThat(runs(rounds, 2)).containsExactly(-3, -2, -1, 0, 1);
    assertThat(rounds.warmups()).isEqualTo(3);
  }

  @Test
  void busyCompilers_addWarmUps_upToTheMaximum() {
    AtomicLong millis = new AtomicLong();
    Runs.Rounds rounds = new Runs.Rounds("t", 2, 5, () -> millis.addAndGet(10_000));
    assertThat(runs(rounds, 1)).containsExactly(-2, -1, -1, -1, -1, 0);
    assertThat(rounds.warmups()).isEqualTo(5);
  }

  @Test
  void compilersThatQuieten_endTheWarmUps() {
    // Read once as the rounds begin, then once at each round's end: busy through four rounds.
    AtomicLong reads = new AtomicLong();
    Runs.Rounds rounds =
        new Runs.Rounds("t", 1, 40, () -> Math.min(reads.incrementAndGet(), 5) * 10_000);
    assertThat(runs(rounds, 1)).containsExactly(-1, -1, -1, -1, -1, 0);
    assertThat(rounds.warmups()).isEqualTo(5);
  }

  @Test
  void noWarmUps_whenNoneAreAsked_andUnknownCompilersAddNone() {
    assertThat(runs(new Runs.Rounds("t", 0, 40, () -> 1), 2)).containsExactly(0, 1);
    assertThat(runs(new Runs.Rounds("t", 1, 40, () -> -1), 1)).containsExactly(-1, 0);
  }
}
