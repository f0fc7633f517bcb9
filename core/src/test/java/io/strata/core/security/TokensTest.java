package io.strata.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class TokensTest {
  private static final ClusterSecret SECRET =
      new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
  private static final ClusterSecret OTHER =
      new ClusterSecret("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.UTF_8));
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

  @Test
  void aTokenNamesItsUserAndRoleUntilItExpires() {
    String t = Tokens.issue(SECRET, "alice", Role.ADMIN, NOW.plus(Duration.ofHours(1)));
    assertThat(Tokens.verify(SECRET, t, NOW)).isEqualTo(new Principal("alice", Role.ADMIN));
    assertThat(Tokens.verify(SECRET, t, NOW.plus(Duration.ofMinutes(59))).user())
        .isEqualTo("alice");
    assertRefused(t, NOW.plus(Duration.ofHours(1)), "expired");
  }

  @Test
  void aTokenSignedWithAnotherSecretIsRefused() {
    String t = Tokens.issue(OTHER, "alice", Role.ADMIN, NOW.plusSeconds(60));
    assertRefused(t, NOW, "signature is not this cluster's");
  }

  @Test
  void aTokenWhosePayloadWasChangedIsRefused() {
    String t = Tokens.issue(SECRET, "alice", Role.USER, NOW.plusSeconds(60));
    String[] parts = t.split("\\.", -1);
    String forged =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(
                ("alice\nADMIN\n" + NOW.plusSeconds(60).toEpochMilli())
                    .getBytes(StandardCharsets.UTF_8));
    assertRefused(parts[0] + "." + forged + "." + parts[2], NOW, "signature");
  }

  @Test
  void malformedMissingAndHugeTokensAreRefusedWithOneLine() {
    assertRefused(null, NOW, "no token");
    assertRefused("", NOW, "no token");
    assertRefused("Bearer x", NOW, "not a Strata token");
    assertRefused("st1.", NOW, "not a Strata token");
    assertRefused("st1.%%%.###", NOW, "not a Strata token");
    assertRefused("st1." + "A".repeat(10_000) + ".AA", NOW, "not a Strata token");
  }

  @Test
  void userNamesThatCouldForgeFieldsAreNotIssued() {
    assertThatThrownBy(() -> Tokens.issue(SECRET, "alice\nADMIN", Role.USER, NOW))
        .isInstanceOf(StrataException.class)
        .hasMessageContaining("user name");
    assertThatThrownBy(() -> Tokens.issue(SECRET, "", Role.USER, NOW))
        .hasMessageContaining("user name");
    assertThat(Tokens.validUser("svc.etl-1@corp")).isTrue();
  }

  @Test
  void rolesCoverTheRolesBelowThem() {
    assertThat(Role.SERVICE.covers(Role.ADMIN)).isTrue();
    assertThat(Role.ADMIN.covers(Role.USER)).isTrue();
    assertThat(Role.ADMIN.covers(Role.SERVICE)).isFalse();
    assertThat(Role.USER.covers(Role.ADMIN)).isFalse();
  }

  private static void assertRefused(String token, Instant at, String why) {
    assertThatThrownBy(() -> Tokens.verify(SECRET, token, at))
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.UNAUTHENTICATED))
        .hasMessageContaining(why)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
