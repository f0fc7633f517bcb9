package io.strata.core.ring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HashRingTest {
  private static final int KEYS = 100_000;
  private static final int VNODES = 256;

  private static List<String> workers(int n) {
    return IntStream.range(0, n).mapToObj(i -> "10.0.0." + i + ":7710").toList();
  }

  private static HashRing<String> ring(List<String> members) {
    return HashRing.of(members, Function.identity(), VNODES);
  }

  private static double movedShare(HashRing<String> a, HashRing<String> b) {
    int moved = 0;
    for (int k = 0; k < KEYS; k++) {
      String key = "/data/file-" + k;
      if (!a.owner(key).equals(b.owner(key))) {
        moved++;
      }
    }
    return (double) moved / KEYS;
  }

  @Test
  void addingOneOfN_movesAboutOneNthOfTheKeys() {
    for (int n : new int[] {4, 10, 30}) {
      List<String> before = workers(n - 1);
      double moved = movedShare(ring(before), ring(workers(n)));
      assertThat(moved).as("n=%d", n).isBetween(0.6 / n, 1.4 / n);
    }
  }

  @Test
  void removingOneOfN_movesOnlyItsKeys() {
    List<String> all = workers(10);
    List<String> without = new ArrayList<>(all);
    String gone = without.remove(3);
    HashRing<String> a = ring(all);
    HashRing<String> b = ring(without);
    for (int k = 0; k < KEYS; k++) {
      String key = "/k" + k;
      if (!a.owner(key).equals(gone)) {
        assertThat(b.owner(key)).isEqualTo(a.owner(key));
      }
    }
    assertThat(movedShare(a, b)).isBetween(0.06, 0.14);
  }

  @Test
  void load_isEvenAcrossMembers() {
    HashRing<String> r = ring(workers(10));
    Map<String, Integer> counts = new HashMap<>();
    for (int k = 0; k < KEYS; k++) {
      counts.merge(r.owner("/f" + k), 1, Integer::sum);
    }
    assertThat(counts).hasSize(10);
    assertThat(Collections.max(counts.values())).isLessThan((int) (KEYS / 10 * 1.25));
    assertThat(Collections.min(counts.values())).isGreaterThan((int) (KEYS / 10 * 0.75));
  }

  @Test
  void owners_areDistinct_startAtTheOwner_andIgnoreInputOrder() {
    List<String> members = new ArrayList<>(workers(5));
    HashRing<String> a = ring(members);
    Collections.reverse(members);
    HashRing<String> b = ring(members);
    List<String> owners = a.owners("/x", 3);
    assertThat(owners).hasSize(3).doesNotHaveDuplicates().startsWith(a.owner("/x"));
    assertThat(b.owners("/x", 3)).isEqualTo(owners);
    assertThat(a.owners("/x", 99)).hasSize(5);
    assertThat(ring(List.of()).owners("/x", 2)).isEmpty();
  }
}
