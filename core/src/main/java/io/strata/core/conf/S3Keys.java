package io.strata.core.conf;

import java.time.Duration;
import java.util.List;

/** Keys of the S3 endpoint (a client process beside each worker: it also reads strata.user.*). */
public final class S3Keys {
  private S3Keys() {}

  public static final ConfKey<Integer> PORT =
      ConfKey.integer("strata.s3.port")
          .defaultValue("7713")
          .scope(Scope.CLIENT)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port of the S3-compatible endpoint (HTTP/1.1, AWS Signature V4).")
          .build();

  public static final ConfKey<String> BIND_HOST =
      ConfKey.string("strata.s3.bind.host")
          .defaultValue("127.0.0.1")
          .scope(Scope.CLIENT)
          .description(
              "Address the S3 endpoint listens on (loopback by default; 0.0.0.0 or a host's "
                  + "address to serve other hosts).")
          .build();

  public static final ConfKey<String> CREDENTIALS_FILE =
      ConfKey.string("strata.s3.credentials.file")
          .defaultValue("${strata.conf.dir}/s3-credentials")
          .scope(Scope.CLIENT)
          .description(
              "Access keys the S3 endpoint accepts, one ACCESS_KEY:SECRET_KEY per line (mode 600). "
                  + "Made with one new key pair at the endpoint's first start if it does not exist.")
          .build();

  public static final ConfKey<List<String>> ANONYMOUS_READ_BUCKETS =
      ConfKey.list("strata.s3.anonymous.read.buckets")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description(
              "Buckets anyone may read without signing (GetObject, HeadObject, ListObjects, "
                  + "HeadBucket, GetBucketLocation), comma-separated; empty (the default): every "
                  + "request is signed. In TOKEN mode an unsigned reader acts as a user no account "
                  + "has, so reads only what the files' 'other' bits allow.")
          .build();

  public static final ConfKey<List<String>> DOMAINS =
      ConfKey.list("strata.s3.domains")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description(
              "Host names under which the S3 endpoint also takes virtual-hosted requests "
                  + "(Host: BUCKET.DOMAIN, the path being the key), comma-separated, e.g. "
                  + "s3.example.com; clients need a DNS name for each bucket (a wildcard record). "
                  + "Path-style requests are taken whatever this says.")
          .build();

  public static final ConfKey<String> REGION =
      ConfKey.string("strata.s3.region")
          .defaultValue("us-east-1")
          .scope(Scope.CLIENT)
          .description(
              "Region the S3 endpoint names in GetBucketLocation and accepts in signatures' scope.")
          .build();

  public static final ConfKey<Integer> THREADS =
      ConfKey.integer("strata.s3.threads")
          .defaultValue("32")
          .scope(Scope.CLIENT)
          .check(n -> n > 0 && n <= 1024, "must be between 1 and 1024")
          .description(
              "Requests the S3 endpoint works on at once (each waits on the cluster); more wait in "
                  + "line.")
          .build();

  public static final ConfKey<Integer> MAX_CONNECTIONS =
      ConfKey.integer("strata.s3.max.connections")
          .defaultValue("4096")
          .scope(Scope.CLIENT)
          .check(n -> n > 0, "must be positive")
          .description(
              "Connections the S3 endpoint keeps open; past it (or a quarter of it from one "
                  + "address) the oldest idle one is closed for the newest.")
          .build();

  public static final ConfKey<Duration> IDLE_TIMEOUT =
      ConfKey.duration("strata.s3.idle.timeout")
          .defaultValue("60s")
          .scope(Scope.CLIENT)
          .check(d -> d.toMillis() > 0, "must be positive")
          .description(
              "How long a connection may send nothing (between requests, or inside one: a client "
                  + "that trickles a request in) before the endpoint closes it.")
          .build();

  public static final ConfKey<String> UPLOADS_DIR =
      ConfKey.string("strata.s3.uploads.dir")
          .defaultValue("${strata.home}/local/s3-uploads")
          .scope(Scope.CLIENT)
          .check(d -> !d.isBlank(), "must name a folder")
          .description(
              "Local folder where the S3 endpoint keeps the parts of multipart uploads until they "
                  + "are completed (then written to the cluster as one file) or aborted: nothing of "
                  + "an unfinished upload reaches the under-storage.")
          .build();

  public static final ConfKey<Duration> UPLOADS_MAX_AGE =
      ConfKey.duration("strata.s3.uploads.max.age")
          .defaultValue("7d")
          .scope(Scope.CLIENT)
          .check(d -> d.toMinutes() >= 1, "must be at least a minute")
          .description(
              "How long an unfinished multipart upload is kept after its last part arrived; older "
                  + "ones are removed (at the endpoint's start and every hour), as S3's lifecycle "
                  + "rule AbortIncompleteMultipartUpload would.")
          .build();

  public static final ConfKey<Long> WHOLE_FETCH_MAX =
      ConfKey.bytes("strata.s3.whole.fetch.max.size")
          .defaultValue("16MiB")
          .scope(Scope.CLIENT)
          .check(n -> n >= 0, "must not be negative")
          .description(
              "A GET of an object up to this size that the co-located worker keeps no whole file "
                  + "of asks the worker to read it whole first (when it is at least "
                  + "strata.worker.page.store.whole.min.size), then sends it from that file by "
                  + "sendfile, as every later GET of that version is: no copy through the endpoint "
                  + "and no call to the worker. Larger objects are read through the client. 0: "
                  + "never.")
          .build();
}
