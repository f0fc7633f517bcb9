package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class PjdfstestResultsTest {
  private static final String SUMMARY =
      """
      /b/tests/chmod/11.t ............ ok
      /b/tests/chmod/12.t ............
      Failed 6/14 subtests

      Test Summary Report
      -------------------
      /b/tests/chmod/12.t          (Wstat: 0 Tests: 14 Failed: 6)
        Failed tests:  3-4, 7-8, 11-12
      /b/tests/chown/00.t          (Wstat: 0 Tests: 1280 Failed: 1)
        Failed test:  291
        TODO passed:   1054, 1058
                       1064
      /b/tests/link/00.t           (Wstat: 0 Tests: 202 Failed: 5)
        Failed tests:  5, 8-9
                       41, 44
      /b/tests/utimensat/09.t      (Wstat: 256 (exited 1) Tests: 1 Failed: 0)
        Non-zero exit status: 1
        Parse errors: Bad plan.  You planned 7 tests but ran 1.
      Files=238, Tests=8792, 245 wallclock secs ( 3.67 usr  0.68 sys + 52.39 cusr = 83.50 CPU)
      Result: FAIL
      """;

  @Test
  void failedChecks_wrappedLists_andChecksNeverRun_areCounted_butTodoPassesAreNot() {
    PjdfstestResults r = PjdfstestResults.parse(SUMMARY);

    assertThat(r.failures())
        .containsOnlyKeys("chmod/12.t", "chown/00.t", "link/00.t", "utimensat/09.t");
    assertThat(r.failures().get("chmod/12.t")).containsExactly(3, 4, 7, 8, 11, 12);
    assertThat(r.failures().get("chown/00.t")).isEqualTo(Set.of(291));
    assertThat(r.failures().get("link/00.t")).containsExactly(5, 8, 9, 41, 44);
    assertThat(r.failures().get("utimensat/09.t")).containsExactly(2, 3, 4, 5, 6, 7);
    assertThat(r.checks()).isEqualTo(8792 + 6);
    assertThat(r.failedChecks()).isEqualTo(6 + 1 + 5 + 6);
  }

  @Test
  void theFailedChecksOwnLines_nameTheirScript() {
    String output =
        """
        /b/tests/unlink/00.t .......
        not ok 53
        Failed 1/112 subtests
        /b/tests/chmod/00.t ........ ok
        /b/tests/chown/00.t ........
        not ok 291 - tried '-u 65534 chown x 65534 -1', expected EPERM, got 0
        Failed 1/1280 subtests
        """;

    assertThat(PjdfstestResults.failedLines(output))
        .containsExactly(
            "/b/tests/unlink/00.t: not ok 53",
            "/b/tests/chown/00.t: not ok 291 - tried '-u 65534 chown x 65534 -1', expected EPERM,"
                + " got 0");
    assertThat(PjdfstestResults.parse(output + SUMMARY).failures())
        .doesNotContainKey("unlink/00.t");
  }
}
