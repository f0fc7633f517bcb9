package io.strata.ufs.s3;

import io.strata.core.conf.ConfType;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsOption;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * An S3 mount's options ({@code strata fs mount /PATH s3://bucket/prefix --option k=v}), checked:
 * an unknown name or a malformed value is refused with one line naming it.
 *
 * @param endpoint null for AWS itself; else an S3-compatible store's address
 * @param accessKey null to use the AWS SDK's default credential chain (environment, profile, IAM)
 * @param requestTimeout bounds one HTTP request
 * @param retryBudget bounds a call with its retries (throttling, 5xx, timeouts: backoff and jitter)
 * @param partSize bytes buffered per part of a multipart upload (a smaller file is one PUT)
 */
public record S3Settings(
    URI endpoint,
    String region,
    boolean pathStyle,
    String accessKey,
    String secretKey,
    Duration requestTimeout,
    Duration retryBudget,
    int maxConnections,
    long partSize) {
  public static final String ENDPOINT = "s3.endpoint";
  public static final String REGION = "s3.region";
  public static final String PATH_STYLE = "s3.path.style.access";
  public static final String ACCESS_KEY = "s3.access.key";
  public static final String SECRET_KEY = "s3.secret.key";
  public static final String REQUEST_TIMEOUT = "s3.request.timeout";
  public static final String RETRY_BUDGET = "s3.retry.budget";
  public static final String MAX_CONNECTIONS = "s3.max.connections";
  public static final String PART_SIZE = "s3.multipart.part.size";

  /** Options whose values are never shown (listings, reports, logs, metrics). */
  public static final Set<String> SECRETS = Set.of(ACCESS_KEY, SECRET_KEY);

  /** Every option an S3 mount takes, for help, docs and the check of unknown names. */
  public static final List<UfsOption> OPTIONS =
      List.of(
          new UfsOption(ENDPOINT, "the store's address, e.g. http://127.0.0.1:9000 (default: AWS)"),
          new UfsOption(REGION, "the bucket's region (default us-east-1)"),
          new UfsOption(PATH_STYLE, "true: bucket in the path, as MinIO and Ceph want (false)"),
          new UfsOption(ACCESS_KEY, "access key id, with s3.secret.key (default: the SDK's chain)"),
          new UfsOption(SECRET_KEY, "secret access key, with s3.access.key (never shown)"),
          new UfsOption(REQUEST_TIMEOUT, "time for one request (30s)"),
          new UfsOption(RETRY_BUDGET, "time a call may spend retrying a store that fails (2min)"),
          new UfsOption(MAX_CONNECTIONS, "connections to the store per process (64)"),
          new UfsOption(PART_SIZE, "multipart upload part size, 5MiB to 2GiB (8MiB)"));

  private static final Set<String> KNOWN =
      OPTIONS.stream().map(UfsOption::name).collect(Collectors.toUnmodifiableSet());

  /** S3's smallest part but the last. */
  private static final long MIN_PART = 5L << 20;

  public static S3Settings of(Map<String, String> options) {
    for (String name : options.keySet()) {
      if (!KNOWN.contains(name)) {
        throw StrataException.invalidArgument(
            "unknown S3 mount option '" + name + "' (known: " + new TreeSet<>(KNOWN) + ")");
      }
    }
    String access = options.get(ACCESS_KEY);
    String secret = options.get(SECRET_KEY);
    if ((access == null) != (secret == null)) {
      throw StrataException.invalidArgument(
          ACCESS_KEY + " and " + SECRET_KEY + " go together: give both, or neither");
    }
    long partSize = parse(options, PART_SIZE, "8MiB", ConfType.BYTES);
    if (partSize < MIN_PART || partSize > Integer.MAX_VALUE - 8) {
      throw StrataException.invalidArgument(
          PART_SIZE + " must be between 5MiB and 2GiB, not " + options.get(PART_SIZE));
    }
    int maxConnections = parse(options, MAX_CONNECTIONS, "64", ConfType.INT);
    if (maxConnections < 1) {
      throw StrataException.invalidArgument(MAX_CONNECTIONS + " must be at least 1");
    }
    return new S3Settings(
        endpoint(options.get(ENDPOINT)),
        options.getOrDefault(REGION, "us-east-1"),
        parse(options, PATH_STYLE, "false", ConfType.BOOLEAN),
        access,
        secret,
        parse(options, REQUEST_TIMEOUT, "30s", ConfType.DURATION),
        parse(options, RETRY_BUDGET, "2min", ConfType.DURATION),
        maxConnections,
        partSize);
  }

  private static <T> T parse(Map<String, String> options, String name, String dflt, ConfType<T> t) {
    String text = options.getOrDefault(name, dflt);
    try {
      return t.parse(text);
    } catch (IllegalArgumentException e) {
      throw StrataException.invalidArgument(
          "S3 mount option " + name + "='" + text + "' is not " + t.expectation());
    }
  }

  private static URI endpoint(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      URI uri = URI.create(text);
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new IllegalArgumentException(text);
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw StrataException.invalidArgument(
          ENDPOINT + "='" + text + "' is not an address such as http://127.0.0.1:9000");
    }
  }

  @Override
  public String toString() {
    // Never the keys: a record's own toString would print them into logs.
    return "S3Settings[endpoint="
        + endpoint
        + ", region="
        + region
        + ", pathStyle="
        + pathStyle
        + ", credentials="
        + (accessKey == null ? "default chain" : "given")
        + "]";
  }
}
