package io.strata.core.security;

/**
 * What an authenticated caller may do. A USER reads and writes files; an ADMIN also changes the
 * cluster (configuration, membership, quorum, mounts, tokens); SERVICE is a process holding the
 * cluster secret (a master, a worker, a FUSE process), which may do all of that and also join the
 * cluster as a worker.
 */
public enum Role {
  USER,
  ADMIN,
  SERVICE;

  /** Whether this role may do what {@code needed} may. */
  public boolean covers(Role needed) {
    return compareTo(needed) >= 0;
  }
}
