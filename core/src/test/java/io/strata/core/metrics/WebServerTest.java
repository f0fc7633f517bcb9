package io.strata.core.metrics;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.NewSecrets;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.core.security.Tokens;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The web port: who may see what, and slow or broken clients that hold nothing. */
class WebServerTest {
  @Test
  void threadDumpsAreForThisHostOnly() throws Exception {
    assertThat(WebServer.servesStacksTo(java.net.InetAddress.getLoopbackAddress())).isTrue();
    assertThat(
            WebServer.servesStacksTo(java.net.InetAddress.getByAddress(new byte[] {10, 1, 2, 3})))
        .isFalse();
  }

  @Test
  void requestsThatNeverEnd_holdNoThread_andAreCutOff() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    Duration limit = Duration.ofSeconds(2);
    List<Socket> slow = new ArrayList<>();
    try (WebServer web =
        new WebServer(
            "127.0.0.1",
            0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            Optional::empty,
            executor,
            Security.none(),
            true,
            limit,
            limit)) {
      // More trickling clients than the port's executor has threads: the JDK's server gave each
      // one a thread until its time ran out, and probes of /health waited behind them.
      for (int i = 0; i < 8; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), web.port()), 2000);
        s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(US_ASCII));
        s.getOutputStream().flush();
        slow.add(s);
      }
      for (String path : List.of("/health", "/metrics")) {
        HttpResponse<String> other = get(web, path, null);
        assertThat(other.statusCode()).as(path).isEqualTo(200);
      }
      assertThat(get(web, "/health", null).body()).isEqualTo("ok\n");

      // Each trickling client's connection is closed once its time is up (with a margin).
      for (Socket s : slow) {
        s.setSoTimeout((int) limit.toMillis() + 5_000);
        InputStream in = s.getInputStream();
        assertThat(in.read()).as("closed, nothing answered").isEqualTo(-1);
      }
    } finally {
      for (Socket s : slow) {
        s.close();
      }
      executor.shutdownNow();
    }
  }

  /**
   * Issue 78, high 7: 256 idle sockets from anyone made /health fail, and orchestrators restart a
   * process whose health fails. Now the oldest idle ones give way.
   */
  @Test
  void aFloodOfIdleSocketsFromOneAddress_leavesHealthAnswered() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    List<Socket> flood = new ArrayList<>();
    try (WebServer web =
        new WebServer(
            "127.0.0.1",
            0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            Optional::empty,
            executor,
            Security.none())) {
      InetAddress attacker = InetAddress.getByName("127.0.0.2");
      for (int i = 0; i < 2 * WebServer.MAX_CONNECTIONS; i++) {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(attacker, 0));
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), web.port()), 2000);
        flood.add(s);
      }
      HttpResponse<String> health = get(web, "/health", null);
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("ok\n");
    } finally {
      for (Socket s : flood) {
        s.close();
      }
      executor.shutdownNow();
    }
  }

  @Test
  void healthIsAnswered_whileEveryThreadOfThePortIsBusyScraping() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CountDownLatch scraping = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    // A meter that is slow to read (a stat of a slow disk, a lock held elsewhere).
    registry.gauge(
        "slow",
        release,
        r -> {
          scraping.countDown();
          try {
            r.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return 1;
        });
    try (WebServer web =
        new WebServer("127.0.0.1", 0, registry, Optional::empty, executor, Security.none())) {
      HttpClient client = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<String>>> scrapes = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        scrapes.add(
            client.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      assertThat(scraping.await(10, TimeUnit.SECONDS)).as("both threads scraping").isTrue();
      // The JDK's server ran /health on the same two threads: it waited for the scrapes.
      assertThat(get(web, "/health", null).statusCode()).isEqualTo(200);
      release.countDown();
      for (CompletableFuture<HttpResponse<String>> f : scrapes) {
        assertThat(f.get(10, TimeUnit.SECONDS).body()).contains("slow 1.0");
      }
    } finally {
      release.countDown();
      executor.shutdownNow();
    }
  }

  @Test
  void withoutAWayToCheckAnAdmin_threadDumpsAreNotServed() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try (WebServer web =
        new WebServer(
            "127.0.0.1",
            0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            Optional::empty,
            executor,
            Security.none(),
            false)) {
      HttpResponse<String> stacks = get(web, "/stacks", null);
      assertThat(stacks.statusCode()).isEqualTo(403);
      assertThat(stacks.body()).contains("jcmd").doesNotContain("\"main\"");
      assertThat(get(web, "/health", null).statusCode()).isEqualTo(200);
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void badRequests_getOneLineAnswers() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try (WebServer web = start(executor, Security.none())) {
      HttpResponse<String> missing = get(web, "/nothing", null);
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(missing.body()).contains("/health");
      HttpResponse<String> post =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + "/health"))
                      .POST(HttpRequest.BodyPublishers.ofString("x"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), web.port()), 2000);
        s.setSoTimeout(5_000);
        s.getOutputStream().write("NOT HTTP AT ALL\r\n\r\n".getBytes(US_ASCII));
        String answer = new String(s.getInputStream().readAllBytes(), US_ASCII);
        assertThat(answer).startsWith("HTTP/1.1 400");
      }
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void inTokenMode_metricsAskForAToken_andHealthStaysOpen(@TempDir Path dir) throws Exception {
    ClusterSecret secret = NewSecrets.in(dir.resolve("secret"));
    ClusterSecret other = NewSecrets.in(dir.resolve("other"));
    Instant later = Instant.now().plusSeconds(600);
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try (WebServer web = start(executor, Security.token(secret))) {
      assertThat(get(web, "/health", null).statusCode()).isEqualTo(200);
      HttpResponse<String> none = get(web, "/metrics", null);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.body()).contains("Authorization: Bearer");
      assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
      String forged = Tokens.issue(other, "alice", Role.USER, later);
      assertThat(get(web, "/metrics", forged).body()).contains("not this cluster's");
      String expired = Tokens.issue(secret, "alice", Role.USER, Instant.now().minusSeconds(1));
      assertThat(get(web, "/metrics", expired).statusCode()).isEqualTo(401);
      HttpResponse<String> alice =
          get(web, "/metrics", Tokens.issue(secret, "alice", Role.USER, later));
      assertThat(alice.statusCode()).isEqualTo(200);

      // Every account of a shared host is on loopback: thread dumps are an administrator's.
      HttpResponse<String> anyone = get(web, "/stacks", null);
      assertThat(anyone.statusCode()).isEqualTo(401);
      assertThat(anyone.body()).contains("admin token", "--admin").doesNotContain("\"main\"");
      HttpResponse<String> user =
          get(web, "/stacks", Tokens.issue(secret, "alice", Role.USER, later));
      assertThat(user.statusCode()).isEqualTo(401);
      assertThat(user.body())
          .isEqualTo("thread dumps need an admin token: alice's token is a USER's\n");
      HttpResponse<String> admin =
          get(web, "/stacks", Tokens.issue(secret, "root", Role.ADMIN, later));
      assertThat(admin.statusCode()).isEqualTo(200);
      assertThat(admin.body()).contains("\"main\"");
    } finally {
      executor.shutdownNow();
    }
  }

  private static WebServer start(ExecutorService executor, Security security)
      throws java.io.IOException {
    return new WebServer(
        "127.0.0.1",
        0,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
        Optional::empty,
        executor,
        security);
  }

  private static HttpResponse<String> get(WebServer web, String path, String token)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + path))
            .timeout(Duration.ofSeconds(5));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
