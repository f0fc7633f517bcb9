package io.strata.core.conf;

/** Which processes read a key. */
public enum Scope {
  MASTER,
  WORKER,
  CLIENT,
  ALL;

  /** Whether a key of this scope matters to a process of {@code process} scope. */
  public boolean appliesTo(Scope process) {
    return this == ALL || process == ALL || this == process;
  }
}
