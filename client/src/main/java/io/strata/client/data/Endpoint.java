package io.strata.client.data;

import io.strata.core.net.HostPort;

/**
 * A worker's data server as this client reaches it: over TCP, or over its Unix domain socket when
 * the worker runs on this host.
 */
public record Endpoint(HostPort tcp, String domainSocket) {
  public static Endpoint tcp(HostPort address) {
    return new Endpoint(address, null);
  }

  public boolean isDomainSocket() {
    return domainSocket != null;
  }

  @Override
  public String toString() {
    return isDomainSocket() ? "unix:" + domainSocket : tcp.toString();
  }
}
