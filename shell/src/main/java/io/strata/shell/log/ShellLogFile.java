package io.strata.shell.log;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.slf4j.event.Level;

/**
 * The shell's log file, opened (and truncated) at the first message. When it cannot be opened
 * (no such folder, read-only), messages go to stderr as one line each, without stack traces,
 * rather than being lost.
 */
final class ShellLogFile {
  private final String path;
  private PrintStream out;
  private boolean toStderr;

  ShellLogFile(String path) {
    this.path = path;
    this.toStderr = path == null || path.isBlank();
  }

  synchronized void write(Level level, String logger, String message, Throwable thrown) {
    if (!toStderr && out == null) {
      open();
    }
    if (toStderr) {
      System.err.println("strata: " + level + " " + message + (thrown == null ? "" : ": " + thrown));
      return;
    }
    out.println(Instant.now() + " " + level + " " + logger + " - " + message);
    if (thrown != null) {
      thrown.printStackTrace(out);
    }
    out.flush();
  }

  private void open() {
    try {
      Path file = Path.of(path);
      out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      toStderr = true;
    }
  }
}
