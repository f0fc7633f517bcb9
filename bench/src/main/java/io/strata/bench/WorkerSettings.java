package io.strata.bench;

import io.strata.core.conf.KeyRegistry;
import io.strata.testkit.ClusterBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --conf KEY=VALUE}: settings a bench's workers start with, to measure one against its
 * default in runs of their own.
 */
public final class WorkerSettings {
  @Option(
      names = "--conf",
      paramLabel = "KEY=VALUE",
      description =
          "A setting of the worker (repeatable), e.g. to compare one against its default.")
  Map<String, String> settings = new LinkedHashMap<>();

  /** Adds the settings to {@code cluster}; an unknown key fails here, naming the closest. */
  public <B extends ClusterBuilder<B>> B applyTo(B cluster) {
    settings.forEach((k, v) -> cluster.property(KeyRegistry.require(k, "--conf"), v));
    return cluster;
  }

  /** The settings as lines of a site file, for a cluster the scripts start ({@link Scripts}). */
  public String[] siteLines() {
    return settings.entrySet().stream()
        .map(e -> KeyRegistry.require(e.getKey(), "--conf").name() + "=" + e.getValue())
        .toArray(String[]::new);
  }
}
