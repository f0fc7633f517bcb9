package io.strata.core.conf;

import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Builds a process's configuration from its sources, lowest precedence first: key defaults, {@code
 * strata-site.properties} in the conf folder, {@code STRATA_*} environment variables, then {@code
 * -Dstrata.*} system properties. Anything that names no key is refused.
 */
public final class ConfLoader {
  public static final String SITE_FILE = "strata-site.properties";

  /**
   * Environment variables the bin/ scripts read themselves, and a user's token: not configuration
   * keys.
   */
  private static final Set<String> SCRIPT_VARIABLES =
      Set.of(
          "STRATA_JAVA_OPTS",
          "STRATA_MASTER_JAVA_OPTS",
          "STRATA_WORKER_JAVA_OPTS",
          "STRATA_FUSE_JAVA_OPTS",
          "STRATA_S3_JAVA_OPTS",
          "STRATA_SHELL_JAVA_OPTS",
          "STRATA_BENCH_JAVA_OPTS",
          "STRATA_JAVA",
          "STRATA_START_TIMEOUT",
          "STRATA_LOCAL_PORT_BASE",
          "STRATA_LOCAL_DATA_DIR",
          "STRATA_LOCAL_CACHE_DIR",
          // A user's token (io.strata.core.security.Credentials): a credential, not a key.
          "STRATA_TOKEN");

  private static final String PREFIX = "strata.";

  private ConfLoader() {}

  /** The configuration of this JVM: its environment and system properties. */
  public static Configuration load() {
    return load(System.getenv(), System.getProperties());
  }

  public static Configuration load(Map<String, String> env, Properties systemProperties) {
    Configuration conf = new Configuration();
    Map<String, ConfKey<?>> byEnvName = new HashMap<>();
    for (ConfKey<?> key : KeyRegistry.all()) {
      byEnvName.put(key.environmentName(), key);
    }
    // Environment and -D first: they may say where the conf folder is.
    applyEnvironment(conf, env, byEnvName);
    applySystemProperties(conf, systemProperties);
    applySiteFile(conf, Path.of(conf.get(CommonKeys.CONF_DIR)).resolve(SITE_FILE));
    conf.validateAll();
    return conf;
  }

  private static void applyEnvironment(
      Configuration conf, Map<String, String> env, Map<String, ConfKey<?>> byEnvName) {
    for (Map.Entry<String, String> e : env.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith("STRATA_") || SCRIPT_VARIABLES.contains(name)) {
        continue;
      }
      ConfKey<?> key = byEnvName.get(name);
      if (key == null) {
        throw ConfErrors.unknownKey(
            name, "the environment", Suggestions.closest(name, byEnvName.keySet()));
      }
      conf.set(key, e.getValue(), Source.ENVIRONMENT, "environment variable " + name);
    }
  }

  private static void applySystemProperties(Configuration conf, Properties props) {
    for (String name : props.stringPropertyNames()) {
      if (name.startsWith(PREFIX)) {
        ConfKey<?> key = KeyRegistry.require(name, "-D system properties");
        conf.set(key, props.getProperty(name), Source.SYSTEM_PROPERTY, "-D" + name);
      }
    }
  }

  /** Reads a properties file into {@code conf} as SITE_PROPERTIES; a missing file is no error. */
  public static void applySiteFile(Configuration conf, Path file) {
    if (!Files.isRegularFile(file)) {
      return;
    }
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      props.load(reader);
    } catch (IOException | IllegalArgumentException e) {
      throw StrataException.invalidArgument("cannot read " + file + ": " + e.getMessage());
    }
    for (String name : props.stringPropertyNames()) {
      ConfKey<?> key = KeyRegistry.require(name.trim(), file.toString());
      conf.set(key, props.getProperty(name).trim(), Source.SITE_PROPERTIES, file.toString());
    }
  }
}
