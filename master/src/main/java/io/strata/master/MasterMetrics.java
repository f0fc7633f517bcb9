package io.strata.master;

/** Names of the master's meters. */
public final class MasterMetrics {
  static final String WORKERS = "strata.master.workers";
  static final String IS_LEADER = "strata.master.leader";

  /** Files load jobs have handed out and not yet seen finish: bounded by each job's window. */
  public static final String LOAD_OPEN_FILES = "strata.master.load.open.files";

  private MasterMetrics() {}
}
