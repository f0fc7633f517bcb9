package io.strata.testkit;

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

  /** A process that binds the port it is given, as a server does, and fails if it is taken. */
  public static final class BindsPort {
    public static void main(String[] args) throws Exception {
      int port = Integer.getInteger("port");
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        s.setSoTimeout(1);
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
  void aPortTakenBeforeTheBindIsToldApart_soTheClusterStartsOnOthers() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      ForkedProcess p = process(BindsPort.class, Map.of("port", "" + taken.getLocalPort()));
      p.start();

      assertThatThrownBy(() -> p.awaitReady(Duration.ofSeconds(60)))
          .isInstanceOf(ForkedProcess.PortTaken.class)
          .hasMessageContaining("exited with 1");
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
