package io.strata.core.ufs.s3;

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
 * An HTTP proxy on 127.0.0.1 in front of an S3 server that answers the first {@code throttled}
 * requests with 503 SlowDown, as S3 does under load, and forwards everything else.
 */
final class ThrottlingProxy implements AutoCloseable {
  private static final Set<String> NOT_FORWARDED =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");
  private static final byte[] SLOW_DOWN =
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
              + "<Message>Please reduce your request rate.</Message></Error>")
          .getBytes(StandardCharsets.UTF_8);

  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();
  private final URI target;
  private final AtomicInteger toThrottle;
  private final AtomicInteger throttled = new AtomicInteger();

  ThrottlingProxy(int targetPort, int throttle) throws IOException {
    this.target = URI.create("http://127.0.0.1:" + targetPort);
    this.toThrottle = new AtomicInteger(throttle);
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", this::handle);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  int throttled() {
    return throttled.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      if (toThrottle.getAndDecrement() > 0) {
        throttled.incrementAndGet();
        ex.getResponseHeaders().add("Content-Type", "application/xml");
        ex.sendResponseHeaders(503, SLOW_DOWN.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(SLOW_DOWN);
        }
        return;
      }
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
