package io.strata.core.ufs.s3;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Clock;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Ranged GETs of object bytes, signed with the SDK's SigV4 signer and sent through the mount's SDK
 * HTTP client, past the SDK's request pipeline (interceptors, endpoint rules, marshalling, retry
 * bookkeeping), which spends two thirds of a small GET's client CPU (docs/performance.md). Only the
 * answer a healthy GET gets is taken here: the exact range asked for, of the version asked for.
 * Anything else, an error status or a connection that fails before its answer, returns empty and
 * the caller asks the SDK instead, whose retries with backoff and whose error lines then apply.
 */
final class S3ObjectGets {
  /** A key whose URL the SDK computes once, to learn where the bucket's keys are addressed. */
  private static final String PROBE = "strata-probe";

  private final SdkHttpClient http;
  private final AwsCredentialsProvider credentials;
  private final String region;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
  private final String protocol;
  private final String host;
  private final int port;

  /** The encoded path of the bucket's keys, up to the key itself. */
  private final String keyPath;

  /**
   * @param sdk the mount's SDK client, whose endpoint rules (region, endpoint, path style) place
   *     the bucket
   */
  S3ObjectGets(
      S3Client sdk,
      SdkHttpClient http,
      AwsCredentialsProvider credentials,
      String region,
      String bucket) {
    this.http = http;
    this.credentials = credentials;
    this.region = region;
    URL probe = sdk.utilities().getUrl(b -> b.bucket(bucket).key(PROBE));
    String path = probe.getPath();
    if (!path.endsWith("/" + PROBE)) {
      throw new IllegalStateException(
          "the SDK addresses " + PROBE + " of " + bucket + " at " + probe);
    }
    this.protocol = probe.getProtocol();
    this.host = probe.getHost();
    this.port = probe.getPort() < 0 ? probe.getDefaultPort() : probe.getPort();
    this.keyPath = path.substring(0, path.length() - PROBE.length());
  }

  /**
   * Bytes {@code [from, from + length)} of {@code key}, an object of {@code objectLength} bytes
   * tagged {@code etag} (quoted, as S3 sends it): a stream of exactly those bytes, to read to its
   * end and close (closing it early drops its connection), or empty if the SDK must be asked.
   */
  Optional<InputStream> open(String key, long from, long length, long objectLength, String etag) {
    HttpExecuteResponse answer;
    try {
      answer =
          http.prepareRequest(
                  HttpExecuteRequest.builder()
                      .request(sign(request(key, from, length, objectLength, etag), null))
                      .build())
              .call();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    Optional<AbortableInputStream> body = answer.responseBody();
    if (body.isPresent() && isTheRange(answer.httpResponse(), from, length, etag)) {
      return Optional.of(new Body(body.get(), length));
    }
    body.ifPresent(AbortableInputStream::abort);
    return Optional.empty();
  }

  /**
   * The GET as the SDK would send it for {@code getObject}, unsigned. A whole object is asked for
   * without a range: a store serves that as it serves any download, where a range costs it more
   * (local-s3: a seventh more CPU per small object).
   */
  SdkHttpFullRequest request(String key, long from, long length, long objectLength, String etag) {
    SdkHttpFullRequest.Builder b =
        SdkHttpFullRequest.builder()
            .method(SdkHttpMethod.GET)
            .protocol(protocol)
            .host(host)
            .port(port)
            .encodedPath(keyPath + SdkHttpUtils.urlEncodeIgnoreSlashes(key))
            .putHeader("If-Match", etag);
    if (from != 0 || length != objectLength) {
      b.putHeader("Range", "bytes=" + from + "-" + (from + length - 1));
    }
    return b.build();
  }

  /**
   * Signed as the SDK signs S3 requests: no double encoding or normalization of the key's path, the
   * payload unsigned ({@code clock} null: the system's).
   */
  SdkHttpRequest sign(SdkHttpRequest request, Clock clock) {
    return signer
        .sign(
            r -> {
              r.identity(credentials.resolveCredentials())
                  .request(request)
                  .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                  .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                  .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                  .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                  .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false);
              if (clock != null) {
                r.putProperty(HttpSigner.SIGNING_CLOCK, clock);
              }
            })
        .request();
  }

  /**
   * 206 with the asked range, or 200 with the whole object when that is the range; and the tag
   * asked for, for stores that ignore If-Match.
   */
  private static boolean isTheRange(SdkHttpResponse r, long from, long length, String etag) {
    long size = r.firstMatchingHeader("Content-Length").map(S3ObjectGets::length).orElse(-1L);
    String tag = r.firstMatchingHeader("ETag").orElse(null);
    if (size != length || !S3Reader.unquoted(etag).equals(S3Reader.unquoted(tag))) {
      return false;
    }
    if (r.statusCode() == 200) {
      return from == 0;
    }
    String expected = "bytes " + from + "-" + (from + length - 1) + "/";
    return r.statusCode() == 206
        && r.firstMatchingHeader("Content-Range").filter(c -> c.startsWith(expected)).isPresent();
  }

  private static long length(String header) {
    try {
      return Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A body that hands its connection back only when read to its end, and drops it otherwise. */
  private static final class Body extends FilterInputStream {
    private final AbortableInputStream body;
    private long left;

    Body(AbortableInputStream body, long length) {
      super(body);
      this.body = body;
      this.left = length;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        left -= n;
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      if (left > 0) {
        body.abort();
      }
      body.close();
    }
  }
}
