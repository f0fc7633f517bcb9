package io.strata.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Security;
import io.strata.core.security.Tokens;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The web port serves others while a client trickles a request, and drops that client. */
class WebServerTest {
  @Test
  void threadDumpsAreForThisHostOnly() throws Exception {
    assertThat(WebServer.servesStacksTo(java.net.InetAddress.getLoopbackAddress())).isTrue();
    assertThat(
            WebServer.servesStacksTo(java.net.InetAddress.getByAddress(new byte[] {10, 1, 2, 3})))
        .isFalse();
  }

  @Test
  void aRequestThatNeverEnds_isCutOff_andOthersAreServedMeanwhile() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try (WebServer web = start(executor, Security.none())) {
      try (Socket slow = new Socket()) {
        slow.connect(
            new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), web.port()), 2000);
        slow.getOutputStream()
            .write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        slow.getOutputStream().flush();

        HttpResponse<String> other =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + "/health"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.body()).isEqualTo("ok\n");

        // The trickling client's connection is closed within the request limit (and a margin).
        slow.setSoTimeout((Integer.parseInt(WebServer.MAX_REQUEST_SECONDS) + 20) * 1000);
        InputStream in = slow.getInputStream();
        assertThat(in.read()).as("closed, nothing answered").isEqualTo(-1);
      }
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void inTokenMode_metricsAskForAToken_andHealthStaysOpen(@TempDir Path dir) throws Exception {
    ClusterSecret secret =
        ClusterSecret.load(SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER));
    ClusterSecret other =
        ClusterSecret.load(SecretFiles.write(dir.resolve("other"), SecretFiles.OTHER));
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
