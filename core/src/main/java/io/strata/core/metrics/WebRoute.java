package io.strata.core.metrics;

import java.net.InetAddress;
import java.util.Map;

/** One path of the web port: what it answers a GET with. */
interface WebRoute {
  /** What a route is asked: the caller's address and the headers it sent (names lower-case). */
  record Request(InetAddress remote, Map<String, String> headers) {
    String header(String name) {
      return headers.get(name);
    }
  }

  /** A plain-text answer. */
  record Response(int status, String contentType, String body, Map<String, String> headers) {
    static Response text(int status, String body) {
      return new Response(status, "text/plain; charset=utf-8", body, Map.of());
    }

    /** 401, asking for a bearer token, with why this request's was refused. */
    static Response unauthorized(String why) {
      return new Response(
          401, "text/plain; charset=utf-8", why + "\n", Map.of("WWW-Authenticate", "Bearer"));
    }
  }

  Response answer(Request request);

  /**
   * Whether it answers at once from memory, on the port's event loop: so that a probe is never
   * queued behind the heavier routes (a scrape, a thread dump), which run on the port's executor.
   */
  default boolean immediate() {
    return false;
  }
}
