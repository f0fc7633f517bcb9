package io.strata.shell.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.event.Level;

class ShellLogProviderTest {
  @TempDir Path dir;

  @AfterEach
  void clearProperties() {
    System.clearProperty(ShellLogProvider.LEVEL_PROPERTY);
    System.clearProperty(ShellLogProvider.FILE_PROPERTY);
  }

  private Logger logger(Path file, String level) {
    System.setProperty(ShellLogProvider.FILE_PROPERTY, file.toString());
    if (level != null) {
      System.setProperty(ShellLogProvider.LEVEL_PROPERTY, level);
    }
    ShellLogProvider provider = new ShellLogProvider();
    provider.initialize();
    return provider.getLoggerFactory().getLogger("io.strata.Example");
  }

  @Test
  void writesWarningsAndErrorsOnlyAndCreatesTheFileAtTheFirstMessage() throws IOException {
    Path file = dir.resolve("shell.log");
    Logger log = logger(file, null);
    log.info("not written {}", 1);
    log.debug("not written either");
    assertThat(file).doesNotExist();
    assertThat(log.isWarnEnabled()).isTrue();
    assertThat(log.isInfoEnabled()).isFalse();

    log.warn("worker {} did not answer", "w1");
    log.error("failed", new IllegalStateException("boom"));

    String text = Files.readString(file);
    assertThat(text)
        .contains("WARN io.strata.Example - worker w1 did not answer")
        .contains("ERROR io.strata.Example - failed")
        .contains("java.lang.IllegalStateException: boom")
        .contains("at io.strata.shell.log.ShellLogProviderTest")
        .doesNotContain("not written");
  }

  @Test
  void eachCommandAppends_andAFileGrownPastItsLimitIsMovedAsideFirst() throws IOException {
    Path file = dir.resolve("shell.log");
    logger(file, null).warn("first command");
    logger(file, null).warn("second command");
    assertThat(Files.readString(file)).contains("first command", "second command");

    new ShellLogFile(file.toString(), 100)
        .write(Level.WARN, "io.strata.Example", "third command", null);
    assertThat(Files.readString(file)).contains("third command").doesNotContain("first command");
    assertThat(dir.resolve("shell.log.1")).content().contains("first command", "second command");
  }

  @Test
  void theLevelIsConfigurable() throws IOException {
    Path file = dir.resolve("shell.log");
    Logger log = logger(file, "debug");
    log.debug("details {} and {}", "a", "b");
    log.trace("too fine");
    assertThat(Files.readString(file))
        .contains("DEBUG io.strata.Example - details a and b")
        .doesNotContain("too fine");
    assertThat(ShellLogProvider.parseLevel("nonsense")).isEqualTo(Level.WARN);
    assertThat(ShellLogProvider.parseLevel(" Error ")).isEqualTo(Level.ERROR);
  }

  @Test
  void aFileThatCannotBeOpenedSendsOneLinePerMessageToStderr() {
    Logger log = logger(dir.resolve("no-such-folder").resolve("shell.log"), null);
    PrintStream saved = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      log.warn("cannot reach {}", "m1", new IllegalStateException("refused"));
    } finally {
      System.setErr(saved);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "strata: WARN cannot reach m1: java.lang.IllegalStateException: refused"
                + System.lineSeparator());
  }
}
