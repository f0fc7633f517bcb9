package io.strata.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The kernel's TCP sockets on some ports, with their states and processes ({@code ss -tanp}): what
 * a start that found a port taken prints, so that a run's output names the holder.
 */
final class PortHolders {
  private PortHolders() {}

  static String of(Collection<Integer> ports) {
    try {
      Process ss = new ProcessBuilder("ss", "-Htanp").redirectErrorStream(true).start();
      String out = new String(ss.getInputStream().readAllBytes(), UTF_8);
      ss.waitFor(10, TimeUnit.SECONDS);
      String held =
          out.lines()
              .filter(l -> ports.stream().anyMatch(p -> l.contains(":" + p + " ")))
              .collect(Collectors.joining("\n  ", "\n  ", ""));
      return held.isBlank() ? " none" : held;
    } catch (IOException e) {
      return " (ss: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return " (interrupted)";
    }
  }
}
