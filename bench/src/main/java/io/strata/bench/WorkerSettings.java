package io.strata.bench;

import io.strata.core.conf.KeyRegistry;
import io.strata.testkit.ClusterBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --conf KEY=VALUE}: settings a bench's workers start with, to measure one against its
 * default in runs of their own.
 */
public final class WorkerSettings {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--conf",
      paramLabel = "KEY=VALUE",
      description =
          "A setting of the worker (repeatable), e.g. to compare one against its default.")
  Map<String, String> settings = new LinkedHashMap<>();

  @Option(
      names = "--worker-java-option",
      paramLabel = "OPTION",
      description =
          "A JVM option of the bench's own workers (repeatable), after its defaults, e.g."
              + " -XX:TieredStopAtLevel=1 to compare C1 alone with tiered compilation.")
  List<String> javaOptions = new ArrayList<>();

  /** {@code defaults} and then the options asked for. */
  public List<String> javaOptions(List<String> defaults) {
    List<String> all = new ArrayList<>(defaults);
    all.addAll(javaOptions);
    return all;
  }

  /** Adds the settings to {@code cluster}; an unknown key fails here, naming the closest. */
  public <B extends ClusterBuilder<B>> B applyTo(B cluster) {
    settings.forEach((k, v) -> cluster.property(KeyRegistry.require(k, "--conf"), v));
    return cluster;
  }

  /**
   * The settings as lines of a site file, for a cluster the scripts start ({@link Scripts}). JVM
   * options do not go there: the scripts take theirs from STRATA_WORKER_JAVA_OPTS, so asking for
   * one here fails rather than go unheard.
   */
  public String[] siteLines() {
    if (!javaOptions.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "--worker-java-option: this bench starts its cluster with the bin/ scripts;"
              + " set STRATA_WORKER_JAVA_OPTS (the scripts' defaults and yours) instead");
    }
    return settings.entrySet().stream()
        .map(e -> KeyRegistry.require(e.getKey(), "--conf").name() + "=" + e.getValue())
        .toArray(String[]::new);
  }
}
