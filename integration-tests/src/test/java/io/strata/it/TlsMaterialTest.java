package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.Tls;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.testkit.TestCa;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process's TLS material from its files (issue 25, item 3): one-line refusals at start, and
 * reloading that takes a renewed pair but never a half-renewed one.
 */
class TlsMaterialTest {
  @TempDir static Path dir;
  private static TestCa ca;

  @BeforeAll
  static void authority() throws Exception {
    assumeTrue(TestCa.available(), "openssl is not installed (apt-get install -y openssl)");
    ca = TestCa.create(dir.resolve("ca"), "material");
  }

  @Test
  void tlsOff_isNoTls() {
    assertThat(Tls.forServer(new Configuration())).isEmpty();
    assertThat(Tls.forClient(new Configuration())).isEmpty();
  }

  @Test
  void aServerWithoutItsCertificate_isRefusedInOneLine() {
    Configuration conf = conf(null);
    assertThatThrownBy(() -> Tls.forServer(conf))
        .isInstanceOf(StrataException.class)
        .hasMessageContaining(SecurityKeys.TLS_CERT_FILE.name())
        .hasMessageNotContaining("\n")
        .satisfies(
            e ->
                assertThat(((StrataException) e).code()).isEqualTo(StatusCode.FAILED_PRECONDITION));
    // A client needs none, unless the cluster asks for one.
    assertThat(Tls.forClient(conf)).isPresent();
    conf.set(SecurityKeys.TLS_MUTUAL, "true");
    assertThatThrownBy(() -> Tls.forClient(conf)).hasMessageContaining("mutual");
  }

  @Test
  void aMissingFile_orAKeyThatIsNotTheCertificates_isRefusedAtStart() throws Exception {
    TestCa.Issued a = ca.issue("a");
    TestCa.Issued b = ca.issue("b");
    Configuration missing = conf(a);
    missing.set(SecurityKeys.TLS_CA_FILE, dir.resolve("nope.pem").toString());
    assertThatThrownBy(() -> Tls.forServer(missing))
        .hasMessage(
            SecurityKeys.TLS_CA_FILE.name()
                + " names "
                + dir.resolve("nope.pem")
                + ", which does not exist");
    Configuration crossed = conf(a);
    crossed.set(SecurityKeys.TLS_KEY_FILE, b.key().toString());
    assertThatThrownBy(() -> Tls.forServer(crossed))
        .hasMessageContaining("is not the key of " + a.cert());
    Configuration garbage = conf(a);
    Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate\n");
    garbage.set(SecurityKeys.TLS_CERT_FILE, junk.toString());
    assertThatThrownBy(() -> Tls.forServer(garbage))
        .isInstanceOf(StrataException.class)
        .hasMessageStartingWith("cannot load TLS material");
  }

  @Test
  void aRenewal_isTakenOnceBothFilesAgree_andTheOldPairServesUntilThen() throws Exception {
    TestCa.Issued first = ca.issue("first");
    TestCa.Issued second = ca.issue("second");
    Path cert = dir.resolve("live.pem");
    Path key = dir.resolve("live.key");
    copy(first.cert(), cert);
    copy(first.key(), key);
    Configuration conf = conf(new TestCa.Issued(cert, key));
    conf.set(SecurityKeys.TLS_RELOAD_INTERVAL, "1s");
    Tls tls = Tls.forServer(conf).orElseThrow();
    assertThat(served(tls)).isEqualTo("CN=first");

    // Half-way through a renewal: the new key, the old certificate. Not loaded.
    copy(second.key(), key);
    Thread.sleep(2500);
    assertThat(served(tls)).isEqualTo("CN=first");

    copy(second.cert(), cert);
    await().atMost(Duration.ofSeconds(10)).until(() -> served(tls).equals("CN=second"));
  }

  private static String served(Tls tls) {
    X509KeyManager keys = (X509KeyManager) tls.keyManager();
    String alias = keys.chooseServerAlias("EC", null, null);
    X509Certificate[] chain = keys.getCertificateChain(alias);
    return chain[0].getSubjectX500Principal().getName();
  }

  private static void copy(Path from, Path to) throws Exception {
    Path tmp = to.resolveSibling(to.getFileName() + ".tmp");
    Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
    Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Configuration conf(TestCa.Issued issued) {
    Configuration c = new Configuration();
    c.set(SecurityKeys.TLS_ENABLED, "true");
    c.set(SecurityKeys.TLS_CA_FILE, ca.cert().toString());
    if (issued != null) {
      c.set(SecurityKeys.TLS_CERT_FILE, issued.cert().toString());
      c.set(SecurityKeys.TLS_KEY_FILE, issued.key().toString());
    }
    return c;
  }
}
