package io.strata.master.journal;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Security;
import io.strata.core.status.StrataException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftSettingsTest {
  @TempDir Path dir;

  @Test
  void aTokenModeMasterOnTheNetwork_needsTlsForItsRaftPort() {
    Security token =
        Security.token(
            ClusterSecret.load(SecretFiles.write(dir.resolve("s"), SecretFiles.CLUSTER)));
    Configuration conf = new Configuration();
    conf.set(MasterKeys.BIND_HOST, "0.0.0.0");
    assertThatThrownBy(() -> RaftSettings.requireAuthenticatedRaft(conf, token))
        .isInstanceOf(StrataException.class)
        .hasMessageContaining("strata.master.bind.host is 0.0.0.0")
        .hasMessageContaining("strata.security.tls.enabled=true")
        .hasMessageNotContaining("\n");
    conf.set(MasterKeys.BIND_HOST, "127.0.0.1");
    assertThatCode(() -> RaftSettings.requireAuthenticatedRaft(conf, token))
        .doesNotThrowAnyException();
    assertThatCode(() -> RaftSettings.requireAuthenticatedRaft(conf, Security.none()))
        .doesNotThrowAnyException();
  }

  /** Issue 54, item 8. */
  @Test
  void tlsWithoutTheClustersCa_isRefusedOffLoopback() {
    Configuration conf = new Configuration();
    conf.set(MasterKeys.BIND_HOST, "0.0.0.0");
    conf.set(SecurityKeys.TLS_ENABLED, "true");
    assertThatThrownBy(() -> RaftSettings.requireAuthenticatedRaft(conf, Security.none()))
        .isInstanceOf(StrataException.class)
        .hasMessageContaining("need strata.security.tls.ca.file")
        .hasMessageNotContaining("\n");
    conf.set(SecurityKeys.TLS_CA_FILE, dir.resolve("ca.pem").toString());
    assertThatCode(() -> RaftSettings.requireAuthenticatedRaft(conf, Security.none()))
        .doesNotThrowAnyException();
    conf.set(SecurityKeys.TLS_CA_FILE, "");
    conf.set(MasterKeys.BIND_HOST, "127.0.0.1");
    assertThatCode(() -> RaftSettings.requireAuthenticatedRaft(conf, Security.none()))
        .doesNotThrowAnyException();
  }
}
