package io.strata.core.process;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.strata.core.conf.Configuration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every long-running process does with its live configuration: report it, and follow log
 * levels.
 */
public final class ProcessConf {
  /** The version of the cluster configuration a process applied. */
  public static final String APPLIED_VERSION = "strata.conf.cluster.version";

  private ProcessConf() {}

  public static void register(
      Configuration conf, MeterRegistry registry, AtomicLong appliedVersion) {
    Gauge.builder(APPLIED_VERSION, appliedVersion, AtomicLong::get)
        .description("Version of the cluster configuration this process applied")
        .register(registry);
    LogLevels.follow(conf);
  }
}
