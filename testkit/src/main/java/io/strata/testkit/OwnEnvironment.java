package io.strata.testkit;

/**
 * The environment of a process a test or a bench starts: the starting process's, without a single
 * {@code STRATA_} variable. Such a process belongs to a cluster of the run's own, configured by its
 * layout alone ({@code -D} keys, a conf folder it is given). A shell beside a local cluster exports
 * that cluster's {@code STRATA_SECURITY_MODE} and secret file (logs/local-cluster.env), an HA one
 * its {@code STRATA_MASTER_RPC_ADDRESSES}: inherited, they turned a bench's cluster into TOKEN mode
 * without a token for its client, or would have pointed its scripts at the user's masters (issue
 * 77).
 */
public final class OwnEnvironment {
  private OwnEnvironment() {}

  /** Removes every {@code STRATA_} variable from what {@code pb} passes on; returns {@code pb}. */
  public static ProcessBuilder of(ProcessBuilder pb) {
    pb.environment().keySet().removeIf(name -> name.startsWith("STRATA_"));
    return pb;
  }
}
