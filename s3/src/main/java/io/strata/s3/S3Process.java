package io.strata.s3;

import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.S3Keys;
import io.strata.core.conf.UserKeys;
import io.strata.core.process.ProcessMain;
import io.strata.core.process.Service;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Tls;
import io.strata.core.util.Periodic;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S3 endpoint as a process of its own beside a worker: a client of the cluster (like the FUSE
 * process), so that it reads what a co-located worker caches by short-circuit and sends whole files
 * by sendfile, and the worker's process carries no HTTP front end. docs/design.md says why.
 */
public final class S3Process implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(S3Process.class);

  /** Requests waiting for a thread, past which new connections' requests are refused (closed). */
  private static final int QUEUE = 4096;

  private final Configuration conf;
  private FileSystem fs;
  private S3Credentials credentials;
  private S3Callers callers;
  private ThreadPoolExecutor executor;
  private S3Server server;
  private ScheduledExecutorService expiry;

  public S3Process(Configuration conf) {
    this.conf = clientConf(conf);
  }

  /**
   * The endpoint keeps statuses as long as the workers would, told of their drops (as a FUSE mount
   * does), unless told not: a warm GET then asks no worker for a status every
   * strata.user.metadata.cache.ttl, and a change through any client shows at once.
   */
  private static Configuration clientConf(Configuration conf) {
    Configuration c = conf.copy();
    if (!conf.isSet(UserKeys.METADATA_CACHE_WATCH)) {
      c.set(UserKeys.METADATA_CACHE_WATCH, "true");
    }
    return c;
  }

  @Override
  public void start() throws IOException {
    credentials = S3Credentials.load(Path.of(conf.get(S3Keys.CREDENTIALS_FILE)));
    fs = FileSystem.create(conf);
    int threads = conf.get(S3Keys.THREADS);
    executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            new io.netty.util.concurrent.DefaultThreadFactory("strata-s3", true));
    executor.allowCoreThreadTimeOut(true);
    Duration idle = conf.get(S3Keys.IDLE_TIMEOUT);
    UploadStore uploads = new UploadStore(Path.of(conf.get(S3Keys.UPLOADS_DIR)));
    Duration maxAge = conf.get(S3Keys.UPLOADS_MAX_AGE);
    expire(uploads, maxAge);
    expiry =
        Executors.newSingleThreadScheduledExecutor(
            new io.netty.util.concurrent.DefaultThreadFactory("strata-s3-expiry", true));
    Periodic.every(
        expiry,
        "removing expired multipart uploads",
        1,
        1,
        TimeUnit.HOURS,
        () -> expire(uploads, maxAge));
    String region = conf.get(S3Keys.REGION);
    long wholeFetchMax = conf.get(S3Keys.WHOLE_FETCH_MAX);
    // In TOKEN mode, the process holds the cluster secret as the FUSE process does.
    ClusterSecret secret = ClusterSecret.readable(conf).orElse(null);
    callers =
        new S3Callers(
            credentials,
            secret,
            S3Operations.own(fs, uploads, region, wholeFetchMax),
            (who, until) ->
                FileSystem.create(
                    conf, Credentials.issuing(secret, who, until).withTls(Tls.forClient(conf))),
            (client, user) -> S3Operations.user(client, uploads, region, user),
            Clock.systemUTC(),
            java.util.Set.copyOf(conf.get(S3Keys.ANONYMOUS_READ_BUCKETS)));
    Periodic.every(
        expiry, "closing the clients of idle S3 users", 1, 1, TimeUnit.MINUTES, callers::closeIdle);
    S3Endpoint endpoint =
        new S3Endpoint(callers, Clock.systemUTC(), idle, conf.get(S3Keys.DOMAINS));
    server =
        new S3Server(
            conf.get(S3Keys.BIND_HOST),
            conf.get(S3Keys.PORT),
            conf.get(S3Keys.MAX_CONNECTIONS),
            idle,
            executor,
            endpoint);
  }

  private static void expire(UploadStore uploads, Duration maxAge) {
    try {
      int removed = uploads.expire(maxAge);
      if (removed > 0) {
        LOG.info("removed {} multipart uploads idle for more than {}", removed, maxAge);
      }
    } catch (IOException e) {
      LOG.warn("could not remove expired multipart uploads: {}", e.toString());
    }
  }

  /** The port served (the configured one, or the one given for port 0). */
  public int port() {
    return server.port();
  }

  /** The first access key pair of the credentials file. */
  public String[] firstKeyPair() {
    var pair = credentials.first();
    return new String[] {pair.getKey(), pair.getValue()};
  }

  @Override
  public Optional<String> notReadyReason() {
    return server == null ? Optional.of("starting") : Optional.empty();
  }

  @Override
  public String describe() {
    return "S3 endpoint http://"
        + conf.get(S3Keys.BIND_HOST)
        + ":"
        + server.port()
        + ", access keys in "
        + credentials.file();
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (expiry != null) {
      expiry.shutdownNow();
      expiry = null;
    }
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
    if (callers != null) {
      callers.close();
      callers = null;
    }
    if (fs != null) {
      fs.close();
      fs = null;
    }
  }

  public static void main(String[] args) {
    ProcessMain.run("s3", args, S3Process::new);
  }
}
