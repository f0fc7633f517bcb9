package io.strata.core.security;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a process presents when it calls another: the token it sends with its calls and, when TLS is
 * on, the {@link Tls} its connections use (the authorities it checks servers against, and its own
 * certificate for mutual TLS). The token: A process holding the cluster secret signs its own (role
 * SERVICE, renewed well before it expires); a user's comes from {@code STRATA_TOKEN} or a token
 * file. Without either, calls carry none: fine in NONE mode, refused in TOKEN mode.
 */
public final class Credentials {
  public static final Credentials NONE = new Credentials(() -> null, null);

  /** The user name a process signs its own tokens with. */
  public static final String SERVICE_USER = "strata";

  private static final Duration SERVICE_TTL = Duration.ofHours(1);
  private static final String ENV = "STRATA_TOKEN";

  private final Supplier<String> token;
  private final Tls tls;

  private Credentials(Supplier<String> token, Tls tls) {
    this.token = token;
    this.tls = tls;
  }

  /** These credentials, over {@code tls}'s connections (plain ones when empty). */
  public Credentials withTls(Optional<Tls> tls) {
    return new Credentials(token, tls.orElse(null));
  }

  /** The TLS of this caller's connections; empty for plain ones. */
  public Optional<Tls> tls() {
    return Optional.ofNullable(tls);
  }

  /** The token to send, or null. */
  public String token() {
    return token.get();
  }

  public static Credentials ofToken(String token) {
    return new Credentials(() -> token, null);
  }

  /** Tokens of role SERVICE signed with {@code secret}, a new one each half hour. */
  public static Credentials service(ClusterSecret secret) {
    return new Credentials(
        new Renewing(secret, new Principal(SERVICE_USER, Role.SERVICE), null), null);
  }

  /**
   * Tokens of {@code who} signed with {@code secret}, a new one each half hour, none valid past
   * {@code notAfter}: what a process holding the secret calls with on a user's behalf (the S3
   * endpoint, for the user an access key names), so that the cluster checks that user's rights.
   */
  public static Credentials issuing(ClusterSecret secret, Principal who, Instant notAfter) {
    return new Credentials(new Renewing(secret, who, notAfter), null);
  }

  /**
   * A client's credentials, over TLS when {@code strata.security.tls.enabled}; its token: {@code
   * STRATA_TOKEN}, else the file {@code strata.security.token.file} names, else the cluster secret
   * if this host's configuration names one this user can read (an operator on a cluster host), else
   * {@code ~/.strata/token} if there is one, else none.
   */
  public static Credentials of(Configuration conf) {
    return tokenOf(conf).withTls(Tls.forClient(conf));
  }

  private static Credentials tokenOf(Configuration conf) {
    String env = System.getenv(ENV);
    if (env != null && !env.isBlank()) {
      return ofToken(env.strip());
    }
    String file = conf.get(SecurityKeys.TOKEN_FILE);
    if (!file.isEmpty()) {
      return ofToken(read(Path.of(file)));
    }
    Optional<ClusterSecret> secret = ClusterSecret.readable(conf);
    if (secret.isPresent()) {
      return service(secret.get());
    }
    Path home = Path.of(System.getProperty("user.home", "/"), ".strata", "token");
    return Files.isReadable(home) ? ofToken(read(home)) : NONE;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new StrataException(
          StatusCode.UNAUTHENTICATED, "cannot read the token file " + file + ": " + e.getMessage());
    }
  }

  /** A token renewed once half its life is gone, never valid past {@code notAfter} (if any). */
  private static final class Renewing implements Supplier<String> {
    private final ClusterSecret secret;
    private final Principal who;
    private final Instant notAfter;
    private String current;
    private Instant renewAt = Instant.MIN;

    Renewing(ClusterSecret secret, Principal who, Instant notAfter) {
      this.secret = secret;
      this.who = who;
      this.notAfter = notAfter;
    }

    @Override
    public synchronized String get() {
      Instant now = Instant.now();
      if (now.isAfter(renewAt)) {
        Instant expiry = now.plus(SERVICE_TTL);
        if (notAfter != null && expiry.isAfter(notAfter)) {
          expiry = notAfter;
        }
        current = Tokens.issue(secret, who.user(), who.role(), expiry);
        renewAt = now.plus(SERVICE_TTL.dividedBy(2));
      }
      return current;
    }
  }
}
