package io.strata.master.service;

import io.strata.core.proto.WorkerAddress;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A worker registers only its own address: the host it names must be the one it calls from (one of
 * the host name's addresses, or loopback for a loopback name), so that nobody, secret or not,
 * redirects a worker's readers to another machine by registering its id with another address.
 * Checked in TOKEN mode, where workers may run on other hosts.
 */
final class WorkerIdentity {
  private WorkerIdentity() {}

  /** Throws PERMISSION_DENIED unless {@code caller} is the host {@code address} names. */
  static void check(WorkerAddress address, SocketAddress caller) {
    if (!(caller instanceof InetSocketAddress inet) || inet.getAddress() == null) {
      return;
    }
    InetAddress from = inet.getAddress();
    InetAddress[] named;
    try {
      named = InetAddress.getAllByName(address.getHost());
    } catch (UnknownHostException e) {
      throw refused(address, from, "it does not resolve");
    }
    boolean same =
        Arrays.stream(named)
            .anyMatch(a -> a.equals(from) || (a.isLoopbackAddress() && from.isLoopbackAddress()));
    if (!same) {
      throw refused(address, from, "it is not where the call came from");
    }
  }

  private static StrataException refused(WorkerAddress address, InetAddress from, String why) {
    return new StrataException(
        StatusCode.PERMISSION_DENIED,
        "a worker registers only its own address: "
            + address.getHost()
            + " called from "
            + from.getHostAddress()
            + ", and "
            + why);
  }
}
