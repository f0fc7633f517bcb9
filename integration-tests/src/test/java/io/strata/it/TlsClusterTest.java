package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.GetClusterReportRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tls;
import io.strata.core.status.StrataException;
import io.strata.testkit.MiniCluster;
import io.strata.testkit.TestCa;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Random;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TOKEN-mode cluster with mutual TLS (issue 25, item 3): every TCP port (master gRPC and Raft,
 * worker gRPC, data and web) speaks TLS only, takes only clients holding a certificate from the
 * cluster's authority, and serves reads and writes end to end; a renewed certificate is used
 * without a restart.
 */
class TlsClusterTest {
  @TempDir static Path dir;
  private static TestCa ca;
  private static TestCa stranger;
  private static TestCa.Issued node;
  private static TestCa.Issued alice;
  private static TestCa.Issued mallory;
  private static MiniCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(TestCa.available(), "openssl is not installed (apt-get install -y openssl)");
    ca = TestCa.create(dir.resolve("ca"), "cluster");
    stranger = TestCa.create(dir.resolve("stranger"), "stranger");
    node = ca.issue("node");
    alice = ca.issue("alice");
    mallory = stranger.issue("mallory");
    Path secret = dir.resolve("secret");
    SecretFiles.write(secret, SecretFiles.CLUSTER);
    cluster =
        MiniCluster.builder()
            .workers(1)
            // SSD only: warm pages then leave by file regions, which TLS must turn into buffers.
            .ssd("512MiB")
            .property(WorkerKeys.MEM_SIZE, "0")
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secret.toString())
            .property(SecurityKeys.TLS_ENABLED, "true")
            .property(SecurityKeys.TLS_MUTUAL, "true")
            .property(SecurityKeys.TLS_CERT_FILE, node.cert().toString())
            .property(SecurityKeys.TLS_KEY_FILE, node.key().toString())
            .property(SecurityKeys.TLS_CA_FILE, ca.cert().toString())
            .property(SecurityKeys.TLS_RELOAD_INTERVAL, "1s")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aClientWithACertificate_writesAndReads_overTls() throws Exception {
    byte[] bytes = new byte[3 << 20];
    new Random(7).nextBytes(bytes);
    try (FileSystem fs = FileSystem.create(clientConf(alice, true))) {
      try (FileOutStream out = fs.create("/tls/data.bin", WriteOptions.DEFAULT)) {
        out.write(bytes);
      }
      fs.free("/tls/data.bin");
      // Cold, through the worker's data port (a stream on a blocking TLS socket)...
      assertThat(readAll(fs, "/tls/data.bin")).isEqualTo(bytes);
      // ...and warm, the pages served from the cache over the same kind of connection.
      assertThat(readAll(fs, "/tls/data.bin")).isEqualTo(bytes);
      try (FileInStream in = fs.open("/tls/data.bin")) {
        byte[] part = new byte[100_000];
        assertThat(in.positionedRead(1_500_000, part, 0, part.length)).isEqualTo(part.length);
        assertThat(part).isEqualTo(java.util.Arrays.copyOfRange(bytes, 1_500_000, 1_600_000));
      }
    }
  }

  @Test
  void everyPort_takesOnlyClientsWithACertificateFromTheClustersAuthority() {
    int[] ports = {
      cluster.master(0).rpcPort(),
      cluster.journalPort(0),
      cluster.master(0).webPort(),
      cluster.worker(0).rpcPort(),
      cluster.worker(0).dataPort(),
      cluster.worker(0).webPort()
    };
    for (int port : ports) {
      assertThat(connects(port, clientConf(alice, true))).as("alice on %d", port).isTrue();
      assertThat(connects(port, clientConf(null, false)))
          .as("no certificate on %d", port)
          .isFalse();
      assertThat(connects(port, clientConf(mallory, true)))
          .as("another authority's certificate on %d", port)
          .isFalse();
    }
  }

  @Test
  void aPlainClient_getsNothingServed() {
    Configuration plain = cluster.clientConf().copy();
    plain.set(SecurityKeys.TLS_ENABLED, "false");
    plain.set(UserKeys.RPC_RETRY_MAX_DURATION, "1s");
    try (MasterClient master = new MasterClient(plain)) {
      assertThatThrownBy(
              () ->
                  master.call(
                      "report",
                      s -> s.getClusterReport(GetClusterReportRequest.getDefaultInstance())))
          .isInstanceOf(StrataException.class);
    }
  }

  @Test
  void theWebPort_servesHttpsToClientsWithACertificate() throws Exception {
    HttpClient https =
        HttpClient.newBuilder()
            .sslContext(Tls.forClient(clientConf(alice, true)).orElseThrow().jdkClient())
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    HttpResponse<String> health =
        https.send(
            HttpRequest.newBuilder(
                    URI.create("https://localhost:" + cluster.worker(0).webPort() + "/health"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
  }

  @Test
  void aRenewedCertificate_servesNewConnections_withoutARestart() throws Exception {
    TestCa.Issued renewed = ca.issue("node-renewed");
    BigInteger serial = serial(renewed.cert());
    assertThat(servedSerial(cluster.master(0).rpcPort())).isNotEqualTo(serial);
    // As an operator's renewal does: the key first, then the certificate, each replaced whole.
    replace(renewed.key(), node.key());
    replace(renewed.cert(), node.cert());
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(servedSerial(cluster.master(0).rpcPort())).isEqualTo(serial);
              assertThat(servedSerial(cluster.worker(0).dataPort())).isEqualTo(serial);
            });
    try (FileSystem fs = FileSystem.create(clientConf(alice, true))) {
      assertThat(fs.listStatus("/")).isNotNull();
    }
  }

  private static void replace(Path from, Path to) throws IOException {
    Path tmp = to.resolveSibling(to.getFileName() + ".new");
    Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
    Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The cluster's client configuration, presenting {@code cert} (none when null). */
  private static Configuration clientConf(TestCa.Issued cert, boolean trustCluster) {
    Configuration c = cluster.clientConf().copy();
    c.set(SecurityKeys.TLS_MUTUAL, "false");
    c.set(SecurityKeys.TLS_CERT_FILE, cert == null ? "" : cert.cert().toString());
    c.set(SecurityKeys.TLS_KEY_FILE, cert == null ? "" : cert.key().toString());
    c.set(SecurityKeys.TLS_CA_FILE, trustCluster ? ca.cert().toString() : "");
    return c;
  }

  /**
   * Whether a TLS connection to {@code port} (on 127.0.0.1, the server's certificate checked) with
   * {@code conf}'s certificate is kept: the server then sends its first bytes (HTTP/2's settings)
   * or waits for a request; a refused certificate ends the connection with an alert.
   */
  private static boolean connects(int port, Configuration conf) {
    try (SSLSocket s =
        (SSLSocket)
            Tls.forClient(conf)
                .orElseThrow()
                .jdkClient()
                .getSocketFactory()
                .createSocket("127.0.0.1", port)) {
      s.setSoTimeout(1500);
      offerHttp2(s);
      s.startHandshake();
      if (port == cluster.master(0).webPort() || port == cluster.worker(0).webPort()) {
        s.getOutputStream()
            .write(
                "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
      InputStream in = s.getInputStream();
      return in.read() >= 0;
    } catch (SocketTimeoutException e) {
      return true;
    } catch (SSLException e) {
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** gRPC's servers take TLS connections that negotiate HTTP/2 only; the others ignore it. */
  private static void offerHttp2(SSLSocket s) {
    SSLParameters p = s.getSSLParameters();
    p.setApplicationProtocols(new String[] {"h2"});
    s.setSSLParameters(p);
  }

  /** The serial number of the certificate a new connection to {@code port} is served. */
  private static BigInteger servedSerial(int port) throws IOException {
    try (SSLSocket s =
        (SSLSocket)
            Tls.forClient(clientConf(alice, true))
                .orElseThrow()
                .jdkClient()
                .getSocketFactory()
                .createSocket("127.0.0.1", port)) {
      s.setSoTimeout(5000);
      offerHttp2(s);
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  private static BigInteger serial(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in))
          .getSerialNumber();
    }
  }

  private static byte[] readAll(FileSystem fs, String path) throws IOException {
    try (FileInStream in = fs.open(path)) {
      return in.readAllBytes();
    }
  }
}
