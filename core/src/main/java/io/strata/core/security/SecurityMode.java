package io.strata.core.security;

/**
 * How a cluster's processes and users prove who they are. NONE trusts every caller and is allowed
 * only when every listener is on loopback; TOKEN asks every call for a token signed with the
 * cluster secret.
 */
public enum SecurityMode {
  NONE,
  TOKEN
}
