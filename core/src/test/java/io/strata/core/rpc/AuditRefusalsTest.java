package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped log4j2.xml under a flood of audit lines. */
class AuditRefusalsTest {
  private static final int FLOOD = 50_000;

  @TempDir Path logs;

  @Test
  void aFloodOfRefusals_losesNoLine() throws Exception {
    System.setProperty("strata.logs.dir", logs.toString());
    System.setProperty("strata.log.file", "flood.log");
    Path config = Path.of("..", "conf", "log4j2.xml").toAbsolutePath().normalize();
    LoggerContext context = Configurator.initialize("audit-flood", null, config.toUri());
    try {
      Logger refusals = context.getLogger(AuditInterceptor.REFUSALS);
      for (int i = 0; i < FLOOD; i++) {
        refusals.info("user=[mallory] ip=/127.0.0.1:1 op=Mount status=UNAUTHENTICATED n={}", i);
      }
    } finally {
      Configurator.shutdown(context);
      System.clearProperty("strata.logs.dir");
      System.clearProperty("strata.log.file");
    }
    long lines;
    try (Stream<String> s = Files.lines(logs.resolve("audit-flood.log"))) {
      lines = s.filter(l -> l.contains("status=UNAUTHENTICATED")).count();
    }
    assertThat(lines).isEqualTo(FLOOD);
  }
}
