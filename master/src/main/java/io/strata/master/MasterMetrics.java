package io.strata.master;

/** Names of the master's meters. */
final class MasterMetrics {
  static final String WORKERS = "strata.master.workers";
  static final String IS_LEADER = "strata.master.leader";

  private MasterMetrics() {}
}
