package io.strata.client.data;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * Whether a host name is this machine: loopback, its name, or one of its addresses. Looked up once.
 */
public final class LocalHost {
  private static final Set<String> NAMES = names();

  private LocalHost() {}

  public static boolean is(String host) {
    return host.equals("localhost")
        || host.startsWith("127.")
        || host.equals("::1")
        || NAMES.contains(host);
  }

  private static Set<String> names() {
    Set<String> names = new HashSet<>();
    try {
      InetAddress self = InetAddress.getLocalHost();
      names.add(self.getHostName());
      names.add(self.getCanonicalHostName());
    } catch (UnknownHostException ignored) {
      // Then only loopback names count as local.
    }
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        nic.inetAddresses().forEach(a -> names.add(a.getHostAddress()));
      }
    } catch (SocketException ignored) {
      // As above.
    }
    return names;
  }
}
