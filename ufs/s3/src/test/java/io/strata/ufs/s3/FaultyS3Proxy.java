package io.strata.ufs.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy on 127.0.0.1 in front of an S3 server that answers the first {@code count} requests
 * with an S3 error, as S3 does (503 SlowDown under load, 403 for wrong credentials), and forwards
 * everything else.
 */
public final class FaultyS3Proxy implements AutoCloseable {
  private static final Set<String> NOT_FORWARDED =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");

  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();
  private final URI target;
  private final AtomicInteger toFail;
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicInteger forwarded = new AtomicInteger();
  private final int status;
  private final byte[] error;

  /** Answers the first {@code count} requests with 503 SlowDown. */
  public static FaultyS3Proxy throttling(int targetPort, int count) throws IOException {
    return new FaultyS3Proxy(targetPort, count, 503, "SlowDown");
  }

  /** Answers every request with 403 InvalidAccessKeyId, as S3 does for unknown credentials. */
  public static FaultyS3Proxy denying(int targetPort) throws IOException {
    return new FaultyS3Proxy(targetPort, Integer.MAX_VALUE, 403, "InvalidAccessKeyId");
  }

  private FaultyS3Proxy(int targetPort, int count, int status, String code) throws IOException {
    this.target = URI.create("http://127.0.0.1:" + targetPort);
    this.toFail = new AtomicInteger(count);
    this.status = status;
    this.error =
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                + code
                + "</Code><Message>injected by the test</Message></Error>")
            .getBytes(StandardCharsets.UTF_8);
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", this::handle);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** How many requests reached the server. */
  public int forwarded() {
    return forwarded.get();
  }

  /** How many requests were answered with the error. */
  public int failed() {
    return failed.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      if (toFail.getAndDecrement() > 0) {
        failed.incrementAndGet();
        ex.getResponseHeaders().add("Content-Type", "application/xml");
        if (ex.getRequestMethod().equals("HEAD")) {
          ex.sendResponseHeaders(status, -1);
          return;
        }
        ex.sendResponseHeaders(status, error.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(error);
        }
        return;
      }
      forwarded.incrementAndGet();
      HttpRequest.Builder request =
          HttpRequest.newBuilder(target.resolve(ex.getRequestURI().toString()))
              .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
        if (!NOT_FORWARDED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
          h.getValue().forEach(v -> request.header(h.getKey(), v));
        }
      }
      HttpResponse<byte[]> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      response
          .headers()
          .map()
          .forEach(
              (k, v) -> {
                if (!NOT_FORWARDED.contains(k.toLowerCase(Locale.ROOT)) && !k.startsWith(":")) {
                  v.forEach(x -> ex.getResponseHeaders().add(k, x));
                }
              });
      byte[] answer = response.body();
      boolean head = ex.getRequestMethod().equals("HEAD");
      if (head) {
        // The object's length, which a HEAD answers with.
        response
            .headers()
            .firstValue("content-length")
            .ifPresent(v -> ex.getResponseHeaders().set("Content-Length", v));
      }
      ex.sendResponseHeaders(
          response.statusCode(), head || answer.length == 0 ? -1 : answer.length);
      if (!head && answer.length > 0) {
        try (OutputStream out = ex.getResponseBody()) {
          out.write(answer);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
