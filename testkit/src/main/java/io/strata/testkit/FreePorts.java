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
 *
 * <p>Test classes run in several JVMs at once ({@code strata.test.forks}, each told its number as
 * {@code strata.test.fork}): each JVM then picks from a slice of the range of its own, so two of
 * them never pick the same port in the moment between its check and its server's bind.
 */
public final class FreePorts {
  private static final int LOWEST = 10_000;
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  public static int next() {
    int[] range = range();
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(range[0], range[1]);
      if (!GIVEN.contains(port) && bindable(port) && GIVEN.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "no free loopback port between " + range[0] + " and " + (range[1] - 1));
  }

  /**
   * This JVM's ports: {@code [from, to)}, below the ephemeral range, its slice of it when several
   * JVMs run tests at once.
   */
  public static int[] range() {
    int end = ephemeralLow();
    int forks = Math.max(1, Integer.getInteger("strata.test.forks", 1));
    int fork = Math.floorMod(Integer.getInteger("strata.test.fork", 1) - 1, forks);
    int slice = (end - LOWEST) / forks;
    int from = LOWEST + fork * slice;
    return new int[] {from, from + slice};
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
      // Read as a stream: Files.readString trusts the size procfs reports and got "3" of it, so
      // every port was picked from the lowest thousand.
      String range =
          String.join(" ", Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")))
              .trim();
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
