package io.strata.core.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfLoaderTest {
  @TempDir Path confDir;

  private Configuration load(Map<String, String> env, Properties props) {
    Properties p = new Properties();
    p.setProperty("strata.conf.dir", confDir.toString());
    p.putAll(props);
    return ConfLoader.load(env, p);
  }

  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  @Test
  void load_withNothingSet_givesDefaults() {
    Configuration conf = load(Map.of(), new Properties());
    assertThat(conf.get(WorkerKeys.PAGE_SIZE)).isEqualTo(1L << 20);
    assertThat(conf.source(WorkerKeys.PAGE_SIZE)).isEqualTo(Source.DEFAULT);
  }

  @Test
  void load_sourcesOverrideInOrder_siteThenEnvironmentThenSystemProperty() throws Exception {
    Files.writeString(
        confDir.resolve(ConfLoader.SITE_FILE),
        "strata.worker.page.size=2MiB\nstrata.worker.rpc.port=9000\nstrata.worker.data.port=9001\n");
    Configuration conf =
        load(
            Map.of("STRATA_WORKER_RPC_PORT", "9100", "STRATA_WORKER_WEB_PORT", "9102"),
            props("strata.worker.web.port", "9202"));
    assertThat(conf.get(WorkerKeys.PAGE_SIZE)).isEqualTo(2L << 20);
    assertThat(conf.source(WorkerKeys.PAGE_SIZE)).isEqualTo(Source.SITE_PROPERTIES);
    assertThat(conf.get(WorkerKeys.DATA_PORT)).isEqualTo(9001);
    assertThat(conf.get(WorkerKeys.RPC_PORT)).isEqualTo(9100);
    assertThat(conf.origin(WorkerKeys.RPC_PORT)).contains("STRATA_WORKER_RPC_PORT");
    assertThat(conf.get(WorkerKeys.WEB_PORT)).isEqualTo(9202);
    assertThat(conf.source(WorkerKeys.WEB_PORT)).isEqualTo(Source.SYSTEM_PROPERTY);
  }

  @Test
  void load_unknownKeyInSiteFile_isRefusedNamingKeyFileAndSuggestion() throws Exception {
    Files.writeString(confDir.resolve(ConfLoader.SITE_FILE), "strata.worker.page.sise=2MiB\n");
    assertThatThrownBy(() -> load(Map.of(), new Properties()))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> {
              assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
              assertThat(e.getMessage())
                  .contains(
                      "strata.worker.page.sise",
                      ConfLoader.SITE_FILE,
                      "did you mean 'strata.worker.page.size'")
                  .doesNotContain("\n");
            });
  }

  @Test
  void load_unknownEnvironmentVariable_isRefusedWithSuggestion() {
    assertThatThrownBy(() -> load(Map.of("STRATA_WORKER_PAGE_SISE", "1MiB"), new Properties()))
        .hasMessageContaining("STRATA_WORKER_PAGE_SISE")
        .hasMessageContaining("STRATA_WORKER_PAGE_SIZE");
  }

  @Test
  void load_unknownSystemProperty_isRefused() {
    assertThatThrownBy(() -> load(Map.of(), props("strata.no.such.key", "1")))
        .hasMessageContaining("unknown configuration key 'strata.no.such.key'");
  }

  @Test
  void load_scriptVariablesAndForeignProperties_areIgnored() {
    Configuration conf =
        load(
            Map.of("STRATA_WORKER_JAVA_OPTS", "-Xmx1g", "STRATA_TOKEN", "st1.a.b", "PATH", "/bin"),
            props("java.home", "/x"));
    assertThat(conf.get(WorkerKeys.PAGE_SIZE)).isEqualTo(1L << 20);
  }

  @Test
  void load_badValue_isRefusedNamingKeyValueAndOrigin() throws Exception {
    Files.writeString(
        confDir.resolve(ConfLoader.SITE_FILE), "strata.worker.heartbeat.interval=soon\n");
    assertThatThrownBy(() -> load(Map.of(), new Properties()))
        .hasMessageContaining("'soon'")
        .hasMessageContaining("strata.worker.heartbeat.interval")
        .hasMessageContaining("expected a duration");
  }

  @Test
  void load_valueBreakingItsCheck_isRefusedWithTheCheckMessage() {
    assertThatThrownBy(() -> load(Map.of("STRATA_WORKER_PAGE_SIZE", "3MB"), new Properties()))
        .hasMessageContaining("power of two");
  }

  @Test
  void defaults_referringToOtherKeys_followThem() {
    Configuration conf = load(Map.of(), props("strata.home", "/srv/strata"));
    assertThat(conf.get(MasterKeys.JOURNAL_FOLDER)).isEqualTo("/srv/strata/journal");
    assertThat(conf.get(MasterKeys.ROOT_UFS)).isEqualTo("/srv/strata/underFSStorage");
  }

  @Test
  void confDir_fromEnvironment_locatesTheSiteFile() throws Exception {
    Files.writeString(confDir.resolve(ConfLoader.SITE_FILE), "strata.worker.rpc.port=9300\n");
    Configuration conf =
        ConfLoader.load(Map.of("STRATA_CONF_DIR", confDir.toString()), new Properties());
    assertThat(conf.get(WorkerKeys.RPC_PORT)).isEqualTo(9300);
  }
}
