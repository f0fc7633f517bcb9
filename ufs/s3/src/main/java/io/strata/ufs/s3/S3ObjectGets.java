package io.strata.ufs.s3;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.Method;
import org.apache.hc.core5.http.impl.HttpProcessors;
import org.apache.hc.core5.http.impl.bootstrap.HttpRequester;
import org.apache.hc.core5.http.impl.bootstrap.RequesterBootstrap;
import org.apache.hc.core5.http.io.EofSensorInputStream;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.message.BasicClassicHttpRequest;
import org.apache.hc.core5.http.protocol.HttpCoreContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Ranged GETs of object bytes, signed as the SDK signs them (S3GetSigner) and sent on HttpCore 5's
 * pooled connections, past the SDK's request pipeline (interceptors, endpoint rules, marshalling,
 * retry bookkeeping) and past HttpClient 5's execution chain (cookies, redirects, authentication,
 * route planning), which together spent most of a small GET's client CPU (docs/performance-log.md).
 * Only the answer a healthy GET gets is taken here: the exact range asked for, of the version asked
 * for. Anything else, an error status or a connection that fails before its answer, returns empty
 * and the caller asks the SDK instead, whose retries with backoff and whose error lines then apply.
 */
final class S3ObjectGets implements AutoCloseable {
  /** A key whose URL the SDK computes once, to learn where the bucket's keys are addressed. */
  private static final String PROBE = "strata-probe";

  /**
   * Pooled connections idle this long are closed before the next GET: a store closes idle ones on
   * its side (S3 after about 20 s), and a GET sent on such a one fails and costs a retry.
   */
  private static final TimeValue MAX_IDLE = TimeValue.ofSeconds(4);

  private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final HttpRequester http;
  private final Timeout leaseTimeout;
  private final S3GetSigner signer;
  private final HttpHost target;

  /** The Host header, as signed and as sent: the port only where it is not the scheme's. */
  private final String hostHeader;

  /** The encoded path of the bucket's keys, up to the key itself. */
  private final String keyPath;

  private final AtomicLong lastSweep = new AtomicLong(System.nanoTime());

  /** False where a proxy is configured: every GET then goes through the SDK, which uses it. */
  private final boolean direct;

  /**
   * @param sdk the mount's SDK client, whose endpoint rules (region, endpoint, path style) place
   *     the bucket
   */
  S3ObjectGets(
      S3Client sdk, S3Settings settings, AwsCredentialsProvider credentials, String bucket) {
    this.signer = new S3GetSigner(credentials, settings.region());
    URL probe = sdk.utilities().getUrl(b -> b.bucket(bucket).key(PROBE));
    String path = probe.getPath();
    if (!path.endsWith("/" + PROBE)) {
      throw new IllegalStateException(
          "the SDK addresses " + PROBE + " of " + bucket + " at " + probe);
    }
    int port = probe.getPort() < 0 ? probe.getDefaultPort() : probe.getPort();
    this.hostHeader = probe.getPort() < 0 ? probe.getHost() : probe.getHost() + ":" + port;
    this.keyPath = path.substring(0, path.length() - PROBE.length());
    this.target = new HttpHost(probe.getProtocol(), probe.getHost(), port);
    this.leaseTimeout = Timeout.of(settings.requestTimeout());
    this.http = requester(settings);
    this.direct = !proxied(probe, System.getenv());
  }

  /**
   * Whether the JVM's proxy settings or the environment's (as the SDK's HTTP client reads them)
   * send requests to {@code url} through a proxy. NO_PROXY is left to the SDK.
   */
  static boolean proxied(URL url, Map<String, String> env) {
    try {
      if (ProxySelector.getDefault().select(url.toURI()).stream()
          .anyMatch(p -> p.type() != Proxy.Type.DIRECT)) {
        return true;
      }
    } catch (URISyntaxException | IllegalArgumentException e) {
      return true;
    }
    String variable = url.getProtocol() + "_proxy";
    return env.containsKey(variable) || env.containsKey(variable.toUpperCase(Locale.ROOT));
  }

  private static HttpRequester requester(S3Settings s) {
    SSLContext tls;
    try {
      tls = SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
    return RequesterBootstrap.bootstrap()
        .setHttpProcessor(HttpProcessors.client("strata"))
        .setSocketConfig(
            SocketConfig.custom()
                .setSoTimeout(Timeout.of(s.requestTimeout()))
                .setTcpNoDelay(true)
                .build())
        .setSslContext(tls)
        // HttpCore checks no host names itself: the TLS handshake does, as a browser would.
        .setSslSetupHandler(p -> p.setEndpointIdentificationAlgorithm("HTTPS"))
        .setMaxTotal(s.maxConnections())
        .setDefaultMaxPerRoute(s.maxConnections())
        .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
        .create();
  }

  /**
   * Bytes {@code [from, from + length)} of {@code key}, an object of {@code objectLength} bytes
   * tagged {@code etag} (quoted, as S3 sends it): a stream of exactly those bytes, to read to its
   * end and close (closing it early drops its connection), or empty if the SDK must be asked.
   */
  Optional<InputStream> open(String key, long from, long length, long objectLength, String etag) {
    if (!direct) {
      return Optional.empty();
    }
    sweepIdle();
    ClassicHttpResponse answer;
    try {
      // Credentials that cannot be resolved fail here too: the SDK then says why, in one line.
      SdkHttpRequest signed = sign(request(key, from, length, objectLength, etag), null);
      BasicClassicHttpRequest get =
          new BasicClassicHttpRequest(Method.GET, target, signed.encodedPath());
      for (Map.Entry<String, List<String>> h : signed.headers().entrySet()) {
        for (String value : h.getValue()) {
          get.addHeader(h.getKey(), value);
        }
      }
      answer = http.execute(target, get, leaseTimeout, HttpCoreContext.create());
    } catch (IOException | HttpException | RuntimeException e) {
      return Optional.empty();
    }
    HttpEntity entity = answer.getEntity();
    try {
      InputStream body = entity == null ? null : entity.getContent();
      if (body instanceof EofSensorInputStream sensed) {
        if (isTheRange(answer, from, length, etag)) {
          return Optional.of(new Body(sensed, length));
        }
        // Not the bytes asked for: the connection goes, rather than be read to the answer's end.
        sensed.abort();
      }
      answer.close();
    } catch (IOException e) {
      // Its connection is discarded: nothing more to do.
    }
    return Optional.empty();
  }

  /** Closes pooled connections idle past {@link #MAX_IDLE}, at most once a second. */
  private void sweepIdle() {
    long now = System.nanoTime();
    long last = lastSweep.get();
    if (now - last > SWEEP_NANOS && lastSweep.compareAndSet(last, now)) {
      http.closeIdle(MAX_IDLE);
    }
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
            .protocol(target.getSchemeName())
            .host(target.getHostName())
            .port(target.getPort())
            .encodedPath(keyPath + SdkHttpUtils.urlEncodeIgnoreSlashes(key))
            .putHeader("Host", hostHeader)
            .putHeader("If-Match", etag);
    if (from != 0 || length != objectLength) {
      b.putHeader("Range", "bytes=" + from + "-" + (from + length - 1));
    }
    return b.build();
  }

  /** Signed as the SDK signs S3 requests ({@code clock} null: the system's). */
  SdkHttpRequest sign(SdkHttpRequest request, Clock clock) {
    return signer.sign(request, clock);
  }

  /**
   * 206 with the asked range, or 200 with the whole object when that is the range; and the tag
   * asked for, for stores that ignore If-Match.
   */
  private static boolean isTheRange(ClassicHttpResponse r, long from, long length, String etag) {
    long size = length(header(r, "Content-Length"));
    String tag = header(r, "ETag");
    if (size != length || !S3Reader.unquoted(etag).equals(S3Reader.unquoted(tag))) {
      return false;
    }
    if (r.getCode() == 200) {
      return from == 0;
    }
    String range = header(r, "Content-Range");
    return r.getCode() == 206
        && range != null
        && range.startsWith("bytes " + from + "-" + (from + length - 1) + "/");
  }

  private static String header(ClassicHttpResponse r, String name) {
    Header h = r.getFirstHeader(name);
    return h == null ? null : h.getValue();
  }

  private static long length(String header) {
    if (header == null) {
      return -1;
    }
    try {
      return Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A body that hands its connection back only when read to its end, and drops it otherwise. */
  private static final class Body extends FilterInputStream {
    private final EofSensorInputStream body;
    private long left;

    Body(EofSensorInputStream body, long length) {
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

  @Override
  public void close() {
    http.close(CloseMode.GRACEFUL);
  }
}
