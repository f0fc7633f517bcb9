package io.strata.s3;

import io.strata.client.FileSystem;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.S3AccessKeys;
import io.strata.core.status.StrataException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Who a request's access key makes the endpoint act as. A key of the credentials file: the
 * endpoint's own account (local mode's keys, an operator's). A key {@code strata fsadmin s3
 * credentials create} derived from a user's token (TOKEN mode, the endpoint holding the cluster
 * secret): that user, through a client of their own whose calls carry their tokens, so that the
 * cluster checks their rights exactly as for the shell and no status one user may see is cached for
 * another. Users' clients are made at their first request and closed once idle.
 */
final class S3Callers implements SigV4.Secrets, AutoCloseable {
  /** Users served at once, past which a new user's requests are answered SlowDown. */
  static final int MAX_USERS = 256;

  /** How long a user's client stays open without a request. */
  static final Duration IDLE = Duration.ofMinutes(5);

  /**
   * Who unsigned readers act as in TOKEN mode: a name no account can have (a leading '-'), so the
   * cluster lets them read what any account may ("other" bits) and nothing more.
   */
  static final String ANONYMOUS = "-s3-anonymous";

  /** The key of the anonymous readers' client among users' (no access key has a NUL). */
  private static final String ANONYMOUS_KEY = "\0anonymous";

  /** The operations a request runs, for as long as it holds them. */
  interface Lease extends AutoCloseable {
    S3Operations ops();

    @Override
    void close();
  }

  private final SigV4.Secrets fileKeys;
  private final ClusterSecret secret;
  private final Lease own;
  private final BiFunction<Principal, Instant, FileSystem> clientOf;
  private final BiFunction<FileSystem, String, S3Operations> opsOver;
  private final Clock clock;
  private final Set<String> anonymousBuckets;
  private final Map<String, User> users = new ConcurrentHashMap<>();

  /**
   * @param fileKeys the credentials file's keys, acting as {@code own}
   * @param secret the cluster secret (TOKEN mode), or null: then only the file's keys are known
   * @param clientOf a client acting as a user until an instant (their access key's expiry)
   * @param opsOver the operations over a client, for a multipart uploads' owner
   * @param anonymousBuckets buckets anyone may read without signing
   */
  S3Callers(
      SigV4.Secrets fileKeys,
      ClusterSecret secret,
      S3Operations own,
      BiFunction<Principal, Instant, FileSystem> clientOf,
      BiFunction<FileSystem, String, S3Operations> opsOver,
      Clock clock,
      Set<String> anonymousBuckets) {
    this.anonymousBuckets = Set.copyOf(anonymousBuckets);
    this.fileKeys = fileKeys;
    this.secret = secret;
    this.own =
        new Lease() {
          @Override
          public S3Operations ops() {
            return own;
          }

          @Override
          public void close() {}
        };
    this.clientOf = clientOf;
    this.opsOver = opsOver;
    this.clock = clock;
  }

  @Override
  public Optional<String> secretOf(String accessKey) {
    Optional<String> file = fileKeys.secretOf(accessKey);
    if (file.isPresent() || secret == null || !S3AccessKeys.derived(accessKey)) {
      return file;
    }
    return Optional.of(resolve(accessKey).secretKey());
  }

  /** The operations of the caller {@code accessKey} names (its signature already checked). */
  Lease lease(String accessKey) {
    if (secret == null || fileKeys.secretOf(accessKey).isPresent()) {
      return own;
    }
    S3AccessKeys.Resolved who = resolve(accessKey);
    return userLease(accessKey, who.principal(), who.expiry());
  }

  /**
   * The operations of an unsigned request: a read (GET or HEAD of an object or of the bucket, its
   * listing or location) of a bucket {@code strata.s3.anonymous.read.buckets} names, as {@link
   * #ANONYMOUS} in TOKEN mode; AccessDenied for anything else.
   */
  Lease anonymous(S3Request r) {
    boolean read = r.method().equals("GET") || r.method().equals("HEAD");
    if (!read
        || r.bucket().isEmpty()
        || !anonymousBuckets.contains(r.bucket())
        || r.has("uploads")
        || r.has("uploadId")) {
      throw SigV4.unsigned();
    }
    if (secret == null) {
      return own;
    }
    // Renewed for as long as it is used: no access key with an expiry stands behind it.
    return userLease(ANONYMOUS_KEY, new Principal(ANONYMOUS, Role.USER), null);
  }

  private Lease userLease(String key, Principal who, Instant expiry) {
    User u =
        users.compute(
            key,
            (k, existing) -> {
              User user = existing;
              if (user == null) {
                if (users.size() >= MAX_USERS) {
                  return null;
                }
                FileSystem fs = clientOf.apply(who, expiry);
                user = new User(fs, opsOver.apply(fs, who.user()));
              }
              user.leases.incrementAndGet();
              user.lastUsed = clock.millis();
              return user;
            });
    if (u == null) {
      closeIdle();
      throw new S3Error(
          503, "SlowDown", "the endpoint serves " + MAX_USERS + " users at once; retry shortly");
    }
    return u;
  }

  /** Closes the clients of users idle for {@link #IDLE}. */
  void closeIdle() {
    long before = clock.millis() - IDLE.toMillis();
    List<User> closed = new ArrayList<>();
    for (String key : users.keySet()) {
      users.computeIfPresent(
          key,
          (k, u) -> {
            if (u.leases.get() == 0 && u.lastUsed < before) {
              closed.add(u);
              return null;
            }
            return u;
          });
    }
    closed.forEach(u -> u.fs.close());
  }

  private S3AccessKeys.Resolved resolve(String accessKey) {
    try {
      return S3AccessKeys.resolve(secret, accessKey, clock.instant());
    } catch (StrataException e) {
      throw new S3Error(403, "InvalidAccessKeyId", e.getMessage());
    }
  }

  @Override
  public void close() {
    users.values().forEach(u -> u.fs.close());
    users.clear();
  }

  private final class User implements Lease {
    final FileSystem fs;
    final S3Operations ops;
    final AtomicInteger leases = new AtomicInteger();
    volatile long lastUsed;

    User(FileSystem fs, S3Operations ops) {
      this.fs = fs;
      this.ops = ops;
    }

    @Override
    public S3Operations ops() {
      return ops;
    }

    @Override
    public void close() {
      lastUsed = clock.millis();
      leases.decrementAndGet();
    }
  }
}
