package io.strata.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForkedProcessTest {
  @TempDir Path dir;

  /**
   * A server on the port it is given: binds it (and fails if it is taken), writes its ready file,
   * serves until killed.
   */
  public static final class BindsPort {
    public static void main(String[] args) throws Exception {
      int port = Integer.getInteger("strata.test.port");
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        java.nio.file.Files.writeString(Path.of(args[1]), "ready on " + s.getLocalPort());
        Thread.sleep(600_000);
      }
    }
  }

  /** A process that exits with an error of its own. */
  public static final class Fails {
    public static void main(String[] args) {
      System.err.println("strata worker: failed to start: bad configuration");
      System.exit(2);
    }
  }

  @Test
  void aPortTakenForGood_isToldApart_withWhoHoldsIt_soTheClusterStartsOnOthers() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      ForkedProcess p = process(BindsPort.class, Map.of("strata.test.port", "" + port));
      p.start();

      assertThatThrownBy(() -> p.awaitReady(Duration.ofSeconds(60)))
          .isInstanceOf(ForkedProcess.PortTaken.class)
          .hasMessageContaining("exited with 1")
          .hasMessageContaining("sockets on its ports")
          .hasMessageContaining(":" + port + " ");
    }
  }

  /** A restart comes back at the same address: a holder that lets go soon is waited out. */
  @Test
  void aPortTakenForAMoment_isWaitedOut() throws Exception {
    ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    int port = taken.getLocalPort();
    ForkedProcess p = process(BindsPort.class, Map.of("strata.test.port", "" + port));
    java.util.concurrent.CompletableFuture.delayedExecutor(
            1500, java.util.concurrent.TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              try {
                taken.close();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    try {
      p.start();
      p.awaitReady(Duration.ofSeconds(60));
      assertThat(p.isAlive()).isTrue();
    } finally {
      p.kill();
      taken.close();
    }
  }

  @Test
  void anyOtherFailure_isNoReasonToTryAgain() throws Exception {
    ForkedProcess p = process(Fails.class, Map.of());
    p.start();

    assertThatThrownBy(() -> p.awaitReady(Duration.ofSeconds(60)))
        .isNotInstanceOf(ForkedProcess.PortTaken.class)
        .hasMessageContaining("exited with 2")
        .hasMessageContaining("bad configuration");
  }

  private ForkedProcess process(Class<?> main, Map<String, String> conf) {
    return new ForkedProcess(
        main.getSimpleName(),
        main.getName(),
        System.getProperty("java.class.path"),
        List.of("-XX:TieredStopAtLevel=1"),
        conf,
        dir);
  }
}
