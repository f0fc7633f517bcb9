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

class S3AccessKeysTest {
  private static final ClusterSecret SECRET =
      new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
  private static final ClusterSecret OTHER =
      new ClusterSecret("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.UTF_8));
  private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");

  @Test
  void theEndpointComputesTheSecretKeyOfAUsersAccessKeyUntilItExpires() {
    Instant expiry = NOW.plus(Duration.ofDays(7));
    S3AccessKeys.Pair pair = S3AccessKeys.of(Tokens.issue(SECRET, "alice@lab", Role.USER, expiry));
    assertThat(pair.accessKey()).startsWith(S3AccessKeys.PREFIX).hasSizeLessThan(128);
    assertThat(pair.accessKey()).matches("[A-Za-z0-9_-]+");
    assertThat(pair.secretKey()).hasSize(40).matches("[A-Za-z0-9_-]+");

    S3AccessKeys.Resolved r = S3AccessKeys.resolve(SECRET, pair.accessKey(), NOW);
    assertThat(r.principal()).isEqualTo(new Principal("alice@lab", Role.USER));
    assertThat(r.secretKey()).isEqualTo(pair.secretKey());
    assertThat(r.expiry()).isEqualTo(expiry);
    assertRefused(pair.accessKey(), expiry, "expired");
  }

  @Test
  void anotherClustersOrAForgedKeyResolvesToASecretKeyItsHolderDoesNotKnow() {
    S3AccessKeys.Pair other =
        S3AccessKeys.of(Tokens.issue(OTHER, "alice", Role.USER, NOW.plusSeconds(60)));
    assertThat(S3AccessKeys.resolve(SECRET, other.accessKey(), NOW).secretKey())
        .isNotEqualTo(other.secretKey());

    // Bob's key with its payload changed to name alice, or to make bob an admin.
    S3AccessKeys.Pair bob =
        S3AccessKeys.of(Tokens.issue(SECRET, "bob", Role.USER, NOW.plusSeconds(60)));
    for (String payload :
        new String[] {
          "alice\nUSER\n" + NOW.plusSeconds(60).toEpochMilli(),
          "bob\nADMIN\n" + NOW.plusSeconds(60).toEpochMilli()
        }) {
      String forged =
          S3AccessKeys.PREFIX
              + Base64.getUrlEncoder()
                  .withoutPadding()
                  .encodeToString(payload.getBytes(StandardCharsets.UTF_8));
      assertThat(S3AccessKeys.resolve(SECRET, forged, NOW).secretKey())
          .isNotEqualTo(bob.secretKey());
    }
  }

  @Test
  void malformedAndHugeKeysAreRefusedWithOneLine() {
    assertThat(S3AccessKeys.derived("AKIAIOSFODNN7EXAMPLE")).isFalse();
    assertRefused("AKIAIOSFODNN7EXAMPLE", NOW, "not an access key of this cluster");
    assertRefused("STRATA%%%", NOW, "not an access key of this cluster");
    assertRefused("STRATA" + "A".repeat(300), NOW, "not an access key of this cluster");
    String noFields =
        "STRATA"
            + Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("alice".getBytes(StandardCharsets.UTF_8));
    assertRefused(noFields, NOW, "not a Strata token");
  }

  private static void assertRefused(String accessKey, Instant at, String why) {
    assertThatThrownBy(() -> S3AccessKeys.resolve(SECRET, accessKey, at))
        .isInstanceOf(StrataException.class)
        .satisfies(
            e -> assertThat(((StrataException) e).code()).isEqualTo(StatusCode.UNAUTHENTICATED))
        .hasMessageContaining(why)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
