package io.strata.core.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.strata.core.net.ConnectionGate;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.core.security.Tls;
import io.strata.core.security.Tokens;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A process's web port: {@code /metrics} (Prometheus text), {@code /health} (200 when the process
 * serves, 503 with the reason when not), {@code /stacks} (a thread dump). HTTPS when the process
 * has TLS, asking for clients' certificates with mutual TLS. In TOKEN mode {@code /metrics} asks
 * for a token ({@code Authorization: Bearer}, as Prometheus sends one) and {@code /stacks} for an
 * administrator's; {@code /health} stays open to probes. {@code /stacks} is for this host only.
 *
 * <p>Served by Netty on one event loop of its own: a client that trickles a request in or reads an
 * answer slowly holds no thread, {@code /health} is answered on the loop (never queued behind a
 * scrape or a thread dump, which run on the executor given), and past {@link #MAX_CONNECTIONS}
 * connections (or 64 from one address) the oldest is closed for the newest, so a flood of idle
 * sockets cannot fail the health checks that orchestrators restart processes on.
 */
// Closes and the close future's counting listener: nothing waits for them.
@SuppressWarnings("FutureReturnValueIgnored")
public final class WebServer implements AutoCloseable {
  /** How long a request may take to arrive whole (from the connection, or the last answer). */
  static final Duration REQUEST_LIMIT = Duration.ofSeconds(10);

  /** How long an answer may take to be made and leave. */
  static final Duration RESPONSE_LIMIT = Duration.ofSeconds(30);

  /** Scrapers and probes are few; past this (or 64 from one address) the oldest is closed. */
  static final int MAX_CONNECTIONS = 256;

  private static final ConnectionGate.Limits LIMITS =
      new ConnectionGate.Limits(MAX_CONNECTIONS, MAX_CONNECTIONS, 64, 1, 0);

  /** A GET's line and headers; a body is refused (413) past it. */
  private static final int MAX_REQUEST_BYTES = 16 << 10;

  private static final String BEARER = "Bearer ";

  private final EventLoopGroup loop;
  private final Channel channel;

  /**
   * @param health empty when healthy, else why not
   * @param executor where the heavier routes (/metrics, /stacks) are answered
   */
  public WebServer(
      String bindHost,
      int port,
      PrometheusMeterRegistry registry,
      Supplier<Optional<String>> health,
      Executor executor,
      Security security)
      throws IOException {
    this(bindHost, port, registry, health, executor, security, true);
  }

  /**
   * @param stacks whether /stacks serves thread dumps at all: not where the process cannot check an
   *     administrator's token although the cluster asks for tokens (a FUSE mount with a user's
   *     token only), since every account of the host reaches the port on loopback
   */
  public WebServer(
      String bindHost,
      int port,
      PrometheusMeterRegistry registry,
      Supplier<Optional<String>> health,
      Executor executor,
      Security security,
      boolean stacks)
      throws IOException {
    this(
        bindHost,
        port,
        registry,
        health,
        executor,
        security,
        stacks,
        REQUEST_LIMIT,
        RESPONSE_LIMIT);
  }

  WebServer(
      String bindHost,
      int port,
      PrometheusMeterRegistry registry,
      Supplier<Optional<String>> health,
      Executor executor,
      Security security,
      boolean stacks,
      Duration requestLimit,
      Duration responseLimit)
      throws IOException {
    Map<String, WebRoute> routes = new LinkedHashMap<>();
    routes.put("/metrics", metrics(registry, security));
    routes.put("/health", health(health));
    routes.put("/stacks", stacks ? stacks(security) : noStacks());
    Map<String, WebRoute> fixed = Map.copyOf(routes);
    Optional<Tls> tls = security.tls();
    // No call here proves anything: every connection stays unproven, so a new one always finds
    // room, the oldest giving way (a probe is never locked out by idle sockets).
    ConnectionGate gate = new ConnectionGate(LIMITS);
    loop =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("strata-web", true), NioIoHandler.newFactory());
    try {
      channel =
          new ServerBootstrap()
              .group(loop)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ConnectionGate.Held held =
                          gate.admit(ch.remoteAddress().getAddress(), ch::close);
                      if (held == null) {
                        ch.close();
                        return;
                      }
                      ch.closeFuture().addListener(f -> held.leave());
                      ChannelPipeline p = ch.pipeline();
                      tls.ifPresent(t -> p.addLast(t.nettyServer().newHandler(ch.alloc())));
                      p.addLast(new HttpServerCodec(4096, MAX_REQUEST_BYTES, 8192));
                      p.addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES));
                      p.addLast(new WebRequests(fixed, executor, requestLimit, responseLimit));
                    }
                  })
              .bind(new InetSocketAddress(bindHost, port))
              .syncUninterruptibly()
              .channel();
    } catch (RuntimeException e) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw new IOException("cannot serve the web port on " + bindHost + ":" + port + ": " + e, e);
    }
  }

  private static WebRoute metrics(PrometheusMeterRegistry registry, Security security) {
    return req -> {
      Optional<String> refused = refusal(security, req.header("authorization"), Instant.now());
      if (refused.isPresent()) {
        return WebRoute.Response.unauthorized(refused.get());
      }
      return new WebRoute.Response(
          200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape(), Map.of());
    };
  }

  private static WebRoute health(Supplier<Optional<String>> health) {
    return new WebRoute() {
      @Override
      public Response answer(Request request) {
        Optional<String> problem = health.get();
        return Response.text(problem.isPresent() ? 503 : 200, problem.orElse("ok") + "\n");
      }

      @Override
      public boolean immediate() {
        return true;
      }
    };
  }

  private static WebRoute noStacks() {
    return req ->
        WebRoute.Response.text(
            403,
            "thread dumps are not served here: this process cannot check an admin token (it"
                + " holds no cluster secret); as its account, run jcmd PID Thread.print\n");
  }

  private WebRoute stacks(Security security) {
    return req -> {
      if (!servesStacksTo(req.remote())) {
        return WebRoute.Response.text(
            403,
            "thread dumps are served to this host only: curl localhost:" + port() + "/stacks\n");
      }
      Optional<String> refused =
          refusal(security, req.header("authorization"), Instant.now(), Role.ADMIN);
      if (refused.isPresent()) {
        return WebRoute.Response.unauthorized(refused.get());
      }
      return WebRoute.Response.text(200, threadDump());
    };
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

  /**
   * Thread dumps show what every thread is doing, paths and callers included: for the host's own
   * operators only, whatever the security mode (and in TOKEN mode for administrators: every account
   * of a shared host is on loopback).
   */
  static boolean servesStacksTo(java.net.InetAddress caller) {
    return caller != null && caller.isLoopbackAddress();
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
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
