package io.strata.core.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JulBridgeTest {
  @TempDir Path logs;

  @Test
  void whatLibrariesLogThroughJul_reachesLog4j_notTheConsole() {
    JulBridge.install();
    java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
    assertThat(Arrays.asList(root.getHandlers())).noneMatch(h -> h instanceof ConsoleHandler);

    StringWriter out = new StringWriter();
    WriterAppender appender =
        WriterAppender.newBuilder()
            .setName("jul-bridge-test")
            .setTarget(out)
            .setLayout(PatternLayout.newBuilder().withPattern("%level %c %m%n").build())
            .build();
    appender.start();
    Logger target = (Logger) LogManager.getLogger("io.strata.test.jul");
    target.addAppender(appender);
    try {
      java.util.logging.Logger.getLogger("io.strata.test.jul").log(Level.SEVERE, "from jul");
    } finally {
      target.removeAppender(appender);
      appender.stop();
    }
    assertThat(out.toString()).contains("ERROR io.strata.test.jul from jul");
  }

  /** The shipped configuration: a flood of gRPC errors leaves a burst and a trickle. */
  @Test
  void theShippedConfiguration_limitsAFloodOfGrpcErrors() throws IOException {
    Path conf = Path.of("..", "conf", "log4j2.xml").toAbsolutePath().normalize();
    assertThat(conf).exists();
    String oldDir = System.getProperty("strata.logs.dir");
    String oldFile = System.getProperty("strata.log.file");
    System.setProperty("strata.logs.dir", logs.toString());
    System.setProperty("strata.log.file", "worker.log");
    LoggerContext ctx = new LoggerContext("shipped-conf", null, conf.toUri());
    try {
      ctx.start();
      org.apache.logging.log4j.Logger grpc = ctx.getLogger("io.grpc.internal.SerializingExecutor");
      org.apache.logging.log4j.Logger strata = ctx.getLogger("io.strata.worker.Something");
      for (int i = 0; i < 1000; i++) {
        grpc.error("Exception while executing runnable " + i);
        strata.error("a Strata error " + i);
      }
    } finally {
      ctx.stop();
      restore("strata.logs.dir", oldDir);
      restore("strata.log.file", oldFile);
    }
    var lines = Files.readAllLines(logs.resolve("worker.log"));
    long fromGrpc = lines.stream().filter(l -> l.contains("executing runnable")).count();
    assertThat(fromGrpc).isBetween(20L, 40L);
    assertThat(lines.stream().filter(l -> l.contains("a Strata error")).count())
        .as("Strata's own errors are never dropped")
        .isEqualTo(1000);
  }

  private static void restore(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }
}
