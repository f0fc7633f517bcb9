package io.strata.testkit;

/**
 * The environment of a process a test or a bench starts: the starting process's, without a single
 * {@code STRATA_} variable. Such a process belongs to a cluster of the run's own, configured by its
 * layout alone ({@code -D} keys, a conf folder it is given). A shell beside a local cluster exports
 * that cluster's {@code STRATA_SECURITY_MODE} and secret file (logs/local-cluster.env), an HA one
 * its {@code STRATA_MASTER_RPC_ADDRESSES}: inherited, they turned a bench's cluster into TOKEN mode
 * without a token for its client, or would have pointed its scripts at the user's masters (issue
 * 77). What says how to run a JVM rather than which cluster to join stays: the Java to use ({@code
 * STRATA_JAVA}), JVM options ({@code STRATA_*_JAVA_OPTS}), the start timeout.
 */
public final class OwnEnvironment {
  private OwnEnvironment() {}

  /** Removes the cluster's {@code STRATA_} variables from what {@code pb} passes on. */
  public static ProcessBuilder of(ProcessBuilder pb) {
    pb.environment().keySet().removeIf(OwnEnvironment::ofACluster);
    return pb;
  }

  /** Whether the variable {@code name} says something of a cluster (not of how to run a JVM). */
  static boolean ofACluster(String name) {
    return name.startsWith("STRATA_")
        && !name.equals("STRATA_JAVA")
        && !name.equals("STRATA_START_TIMEOUT")
        && !name.endsWith("_JAVA_OPTS");
  }
}
