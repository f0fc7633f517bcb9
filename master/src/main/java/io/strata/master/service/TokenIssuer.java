package io.strata.master.service;

import io.strata.core.proto.CreateTokenRequest;
import io.strata.core.proto.CreateTokenResponse;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Issues users' tokens (fsadmin token create): signed here with the cluster secret, kept nowhere,
 * checked by any process holding the secret. Any master issues them, leader or not: nothing is
 * journaled. Who may ask is the admin check of AuthInterceptor.
 */
final class TokenIssuer {
  static final Duration DEFAULT_TTL = Duration.ofDays(7);

  private final Security security;
  private final Clock clock;

  TokenIssuer(Security security, Clock clock) {
    this.security = security;
    this.clock = clock;
  }

  CreateTokenResponse create(CreateTokenRequest req) {
    ClusterSecret secret =
        security
            .secret()
            .orElseThrow(
                () ->
                    new StrataException(
                        StatusCode.FAILED_PRECONDITION,
                        "the cluster's security mode is NONE: every caller is trusted and no token"
                            + " is needed (tokens are for strata.security.mode=TOKEN)"));
    Duration ttl = req.getTtlMs() == 0 ? DEFAULT_TTL : Duration.ofMillis(req.getTtlMs());
    if (ttl.isNegative() || ttl.compareTo(Tokens.MAX_TTL) > 0) {
      throw StrataException.invalidArgument(
          "a token lives from 1 ms to " + Tokens.MAX_TTL.toDays() + " days, not " + ttl);
    }
    Instant expiry = clock.instant().plus(ttl);
    String token =
        Tokens.issue(secret, req.getUser(), req.getAdmin() ? Role.ADMIN : Role.USER, expiry);
    return CreateTokenResponse.newBuilder()
        .setToken(token)
        .setExpiresEpochMs(expiry.toEpochMilli())
        .build();
  }
}
