package io.strata.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OwnEnvironmentTest {
  @Test
  void aClustersVariablesGo_howToRunAJvmStays() {
    ProcessBuilder pb = new ProcessBuilder("true");
    pb.environment().clear();
    pb.environment()
        .putAll(
            Map.of(
                "STRATA_SECURITY_MODE", "TOKEN",
                "STRATA_TOKEN", "t",
                "STRATA_MASTER_RPC_ADDRESSES", "h:1",
                "STRATA_JAVA", "/opt/jdk/bin/java",
                "STRATA_WORKER_JAVA_OPTS", "-Xmx1g",
                "STRATA_START_TIMEOUT", "90",
                "PATH", "/usr/bin"));

    OwnEnvironment.of(pb);

    assertThat(pb.environment())
        .containsOnlyKeys("STRATA_JAVA", "STRATA_WORKER_JAVA_OPTS", "STRATA_START_TIMEOUT", "PATH");
  }
}
