package io.strata.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** A bench's JVM options for its workers: added after its defaults, or refused where unheard. */
class WorkerSettingsTest {
  @Command(name = "a-bench")
  static final class ABench {
    @Mixin WorkerSettings settings = new WorkerSettings();
  }

  @Test
  void javaOptionsComeAfterTheBenchsDefaults() {
    ABench bench = new ABench();
    new CommandLine(bench)
        .parseArgs(
            "--worker-java-option=-XX:TieredStopAtLevel=1", "--worker-java-option", "-Xss1m");
    assertThat(bench.settings.javaOptions(List.of("-Xmx1g")))
        .containsExactly("-Xmx1g", "-XX:TieredStopAtLevel=1", "-Xss1m");
    assertThat(new ABench().settings.javaOptions(List.of("-Xmx1g"))).containsExactly("-Xmx1g");
  }

  @Test
  void aBenchOfTheScripts_refusesJavaOptionsItCouldNotPassOn() {
    ABench bench = new ABench();
    new CommandLine(bench).parseArgs("--worker-java-option=-XX:TieredStopAtLevel=1");
    assertThatThrownBy(bench.settings::siteLines)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("STRATA_WORKER_JAVA_OPTS");
    assertThat(new ABench().settings.siteLines()).isEmpty();
  }
}
