package io.strata.core.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/**
 * Tokens and proofs against random and mutated input (issue 25's fuzzing): whatever a caller sends,
 * it is refused UNAUTHENTICATED with one line, or it names exactly the caller the cluster signed;
 * never another caller, never another exception.
 */
class TokensFuzzTest {
  private static final ClusterSecret SECRET =
      new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  private static final String TOKEN =
      Tokens.issue(SECRET, "alice", Role.USER, NOW.plusSeconds(3600));
  private static final Principal ALICE = new Principal("alice", Role.USER);
  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/\n";

  @Property(tries = 30_000)
  void anyText_isRefusedCleanly(@ForAll @StringLength(max = 700) String text) {
    assertRefused(() -> Tokens.verify(SECRET, text, NOW));
    assertRefused(() -> Tokens.verify(SECRET, "st1." + text, NOW));
  }

  @Property(tries = 30_000)
  void aMutatedToken_namesTheSameCallerOrIsRefused(
      @ForAll @IntRange(min = 0, max = 200) int at,
      @ForAll("alphabet") char c,
      @ForAll @IntRange(min = 0, max = 2) int how) {
    int i = at % TOKEN.length();
    String mutated =
        switch (how) {
          case 0 -> TOKEN.substring(0, i) + c + TOKEN.substring(i + 1);
          case 1 -> TOKEN.substring(0, i) + c + TOKEN.substring(i);
          default -> TOKEN.substring(0, i) + TOKEN.substring(i + 1);
        };
    try {
      assertThat(Tokens.verify(SECRET, mutated, NOW)).isEqualTo(ALICE);
    } catch (StrataException e) {
      assertOneLineRefusal(e);
    }
  }

  @Property(tries = 20_000)
  void anyProof_forAnyNonce_isRefused(
      @ForAll @StringLength(max = 600) String proof, @ForAll @Size(32) byte[] nonce) {
    assertRefused(() -> Tokens.verifyProof(SECRET, proof, nonce, NOW));
    assertRefused(() -> Tokens.verifyProof(SECRET, "st1." + proof, nonce, NOW));
  }

  @Property(tries = 20_000)
  void aProofForOneNonce_isWorthNothingForAnother(
      @ForAll @Size(32) byte[] nonce, @ForAll @Size(32) byte[] other) {
    String proof = Tokens.proof(TOKEN, nonce);
    assertThat(Tokens.verifyProof(SECRET, proof, nonce, NOW)).isEqualTo(ALICE);
    if (!java.util.Arrays.equals(nonce, other)) {
      assertRefused(() -> Tokens.verifyProof(SECRET, proof, other, NOW));
    }
  }

  @Provide
  Arbitrary<Character> alphabet() {
    return Arbitraries.of(ALPHABET.chars().mapToObj(ch -> (char) ch).toList());
  }

  private static void assertRefused(Runnable call) {
    try {
      call.run();
    } catch (StrataException e) {
      assertOneLineRefusal(e);
      return;
    }
    throw new AssertionError("accepted");
  }

  private static void assertOneLineRefusal(StrataException e) {
    assertThat(e.code()).isEqualTo(StatusCode.UNAUTHENTICATED);
    assertThat(e.getMessage()).doesNotContain("\n");
  }
}
