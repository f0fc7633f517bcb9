package io.strata.testkit;

import io.strata.core.conf.S3Keys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.Tokens;
import io.strata.testkit.ClusterLayout.MasterPorts;
import io.strata.testkit.ClusterLayout.WorkerPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A conf folder and a logs folder in a work folder of their own, for the real {@code bin/} scripts
 * (as STRATA_CONF_DIR and STRATA_LOGS_DIR): one master and one worker laid out by {@link
 * ClusterLayout} on free loopback ports, with the product's defaults otherwise, so a cluster
 * started with it never touches the install's own.
 */
public record ScriptConf(Path conf, Path logs, int workerWebPort) {
  /** Writes the folders under {@code work}; {@code extra} are more {@code key=value} lines. */
  public static ScriptConf create(Path home, Path work, String... extra) throws IOException {
    Path conf = Files.createDirectories(work.resolve("conf"));
    Files.copy(home.resolve("conf/log4j2.xml"), conf.resolve("log4j2.xml"));
    ClusterLayout layout =
        new ClusterLayout(work, List.of(MasterPorts.free()), false, false, null, Map.of());
    Files.createDirectories(layout.ufsRoot());
    WorkerPorts worker = WorkerPorts.free();
    // One site file serves both processes: the master's keys and the worker's do not meet.
    Map<String, String> site = new LinkedHashMap<>(layout.master(0));
    site.putAll(layout.worker(0, worker));
    // The S3 endpoint local mode starts beside the worker: a port of its own too.
    site.put(S3Keys.PORT.name(), String.valueOf(FreePorts.next()));
    site.put(S3Keys.UPLOADS_DIR.name(), work.resolve("s3-uploads").toString());
    // The scripts choose the security mode as they do for a user's install.
    site.remove(SecurityKeys.MODE.name());
    List<String> lines = new ArrayList<>();
    site.forEach((k, v) -> lines.add(k + "=" + v));
    lines.addAll(List.of(extra));
    lines.add("");
    Files.writeString(conf.resolve("strata-site.properties"), String.join("\n", lines));
    return new ScriptConf(conf, work.resolve("logs"), worker.web());
  }

  /**
   * What a scraper of this local cluster's {@code /metrics} sends as its Authorization header:
   * local mode runs in TOKEN mode with a secret in its data folder (bin/strata-start.sh), so a
   * service token signed with it; null before the cluster made one.
   */
  public String metricsAuthorization() {
    Path secret = secretFile();
    if (!Files.isReadable(secret)) {
      return null;
    }
    return "Bearer "
        + Tokens.issue(
            ClusterSecret.load(secret),
            "scraper",
            Role.SERVICE,
            Instant.now().plus(Duration.ofMinutes(10)));
  }

  /**
   * The cluster secret the scripts make for a start that configures none (in their data folder,
   * STRATA_LOCAL_DATA_DIR): what a client in this JVM names as strata.security.secret.file.
   */
  public Path secretFile() {
    return conf.getParent().resolve("local/secret");
  }

  /** The folder mounted at / (local mode's under-storage). */
  public Path ufsRoot() {
    return conf.getParent().resolve("ufs");
  }

  /**
   * The environment the scripts run with: this conf and logs folder, and local mode's journals,
   * domain sockets and disk caches in the work folder too.
   */
  public Map<String, String> environment() {
    Path work = conf.getParent();
    return Map.of(
        "STRATA_CONF_DIR", conf.toString(),
        "STRATA_LOGS_DIR", logs.toString(),
        "STRATA_LOCAL_DATA_DIR", work.resolve("local").toString(),
        "STRATA_LOCAL_CACHE_DIR", work.resolve("cache").toString());
  }
}
