package io.strata.testkit;

import com.google.common.base.CharMatcher;
import com.google.common.base.Splitter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for servers whose address must be known before they start. They are picked
 * below the kernel's ephemeral range: a port picked inside it may be taken, before the server binds
 * it, by any outgoing connection of the test's own processes. A port is handed out once per JVM.
 */
public final class FreePorts {
  private static final int LOWEST = 10_000;
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  public static int next() {
    int highest = ephemeralLow() - 1;
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
      if (!GIVEN.contains(port) && bindable(port) && GIVEN.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free loopback port between " + LOWEST + " and " + highest);
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return s.isBound();
    } catch (IOException e) {
      return false;
    }
  }

  /** The start of the ephemeral port range (32768 when it cannot be read). */
  private static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      return Math.max(
          LOWEST + 1000,
          Integer.parseInt(
              Splitter.on(CharMatcher.whitespace())
                  .omitEmptyStrings()
                  .split(range)
                  .iterator()
                  .next()));
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }
}
