package io.strata.core.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.core.security.Tls;
import io.strata.core.security.Tokens;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.SSLParameters;

/**
 * A process's web port: {@code /metrics} (Prometheus text), {@code /health} (200 when the process
 * serves, 503 with the reason when not), {@code /stacks} (a thread dump). HTTPS when the process
 * has TLS, asking for clients' certificates with mutual TLS. In TOKEN mode {@code /metrics} asks
 * for a token ({@code Authorization: Bearer}, as Prometheus sends one) and {@code /stacks} for an
 * administrator's; {@code /health} stays open to probes. {@code /stacks} is for this host only.
 */
public final class WebServer implements AutoCloseable {
  /**
   * Seconds a request may take to arrive: the JDK's server then closes its connection, so a client
   * that trickles a request in cannot hold one of the port's threads for long.
   */
  static final String MAX_REQUEST_SECONDS = "10";

  /** Seconds a response may take to leave, for the same reason. */
  static final String MAX_RESPONSE_SECONDS = "30";

  static {
    // Read once, when the JDK's server first starts in this JVM; a value set by hand wins.
    setIfAbsent("sun.net.httpserver.maxReqTime", MAX_REQUEST_SECONDS);
    setIfAbsent("sun.net.httpserver.maxRspTime", MAX_RESPONSE_SECONDS);
  }

  private static void setIfAbsent(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  private static final String BEARER = "Bearer ";

  private final HttpServer server;

  /**
   * @param health empty when healthy, else why not
   */
  public WebServer(
      String bindHost,
      int port,
      PrometheusMeterRegistry registry,
      Supplier<Optional<String>> health,
      Executor executor,
      Security security)
      throws IOException {
    server = create(new InetSocketAddress(bindHost, port), security.tls());
    server.setExecutor(executor);
    server.createContext(
        "/metrics",
        ex -> {
          Optional<String> refused =
              refusal(security, ex.getRequestHeaders().getFirst("Authorization"), Instant.now());
          if (refused.isPresent()) {
            ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            respond(ex, 401, "text/plain; charset=utf-8", refused.get() + "\n");
            return;
          }
          respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
        });
    server.createContext(
        "/health",
        ex -> {
          Optional<String> problem = health.get();
          respond(
              ex,
              problem.isPresent() ? 503 : 200,
              "text/plain; charset=utf-8",
              problem.orElse("ok") + "\n");
        });
    server.createContext(
        "/stacks",
        ex -> {
          if (!servesStacksTo(ex.getRemoteAddress().getAddress())) {
            respond(
                ex,
                403,
                "text/plain; charset=utf-8",
                "thread dumps are served to this host only: curl localhost:"
                    + port()
                    + "/stacks\n");
            return;
          }
          Optional<String> refused =
              refusal(
                  security,
                  ex.getRequestHeaders().getFirst("Authorization"),
                  Instant.now(),
                  Role.ADMIN);
          if (refused.isPresent()) {
            ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            respond(ex, 401, "text/plain; charset=utf-8", refused.get() + "\n");
            return;
          }
          respond(ex, 200, "text/plain; charset=utf-8", threadDump());
        });
    server.start();
  }

  /** Why a request with {@code authorization} is refused metrics, if it is. */
  static Optional<String> refusal(Security security, String authorization, Instant now) {
    return refusal(security, authorization, now, Role.USER);
  }

  /**
   * Why a request with {@code authorization} is refused what a token of role {@code needed} may
   * see, if it is: in TOKEN mode, metrics ask for any of the cluster's tokens, thread dumps (every
   * thread's paths and callers, other accounts' included) for an administrator's or a service's.
   */
  static Optional<String> refusal(
      Security security, String authorization, Instant now, Role needed) {
    if (security.secret().isEmpty()) {
      return Optional.empty();
    }
    String what = needed == Role.USER ? "metrics need a token" : "thread dumps need an admin token";
    String mint = needed == Role.USER ? "" : " --admin";
    if (authorization == null || !authorization.startsWith(BEARER)) {
      return Optional.of(
          what
              + " in TOKEN mode: send 'Authorization: Bearer TOKEN'"
              + " (strata fsadmin token create USER"
              + mint
              + ")");
    }
    try {
      Principal caller =
          Tokens.verify(
              security.secret().get(), authorization.substring(BEARER.length()).strip(), now);
      return caller.role().covers(needed)
          ? Optional.empty()
          : Optional.of(what + ": " + caller.user() + "'s token is a " + caller.role() + "'s");
    } catch (StrataException e) {
      return Optional.of(e.getMessage());
    }
  }

  private static HttpServer create(InetSocketAddress address, Optional<Tls> tls)
      throws IOException {
    if (tls.isEmpty()) {
      return HttpServer.create(address, 16);
    }
    HttpsServer https = HttpsServer.create(address, 16);
    boolean mutual = tls.get().mutual();
    https.setHttpsConfigurator(
        new HttpsConfigurator(tls.get().jdkServer()) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = getSSLContext().getDefaultSSLParameters();
            p.setNeedClientAuth(mutual);
            params.setSSLParameters(p);
          }
        });
    return https;
  }

  /**
   * Thread dumps show what every thread is doing, paths and callers included: for the host's own
   * operators only, whatever the security mode (and in TOKEN mode for administrators: every account
   * of a shared host is on loopback).
   */
  static boolean servesStacksTo(java.net.InetAddress caller) {
    return caller != null && caller.isLoopbackAddress();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private static void respond(HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String threadDump() {
    StringBuilder sb = new StringBuilder();
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
      sb.append('"')
          .append(info.getThreadName())
          .append("\" ")
          .append(info.getThreadState())
          .append('\n');
      for (StackTraceElement e : info.getStackTrace()) {
        sb.append("    at ").append(e).append('\n');
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
