package io.strata.shell.log;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.slf4j.event.Level;

/**
 * The shell's log file, opened at a command's first message and appended to, so that an earlier
 * command's warnings are still there when someone looks; past {@link #MAX_BYTES} at opening it is
 * moved aside to {@code shell.log.1} (one generation kept). When it cannot be opened (no such
 * folder, read-only), messages go to stderr as one line each, without stack traces, rather than
 * being lost.
 */
final class ShellLogFile {
  static final long MAX_BYTES = 1 << 20;

  private final String path;
  private final long maxBytes;
  private PrintStream out;
  private boolean toStderr;

  ShellLogFile(String path) {
    this(path, MAX_BYTES);
  }

  ShellLogFile(String path, long maxBytes) {
    this.path = path;
    this.maxBytes = maxBytes;
    this.toStderr = path == null || path.isBlank();
  }

  synchronized void write(Level level, String logger, String message, Throwable thrown) {
    if (!toStderr && out == null) {
      open();
    }
    if (toStderr) {
      System.err.println(
          "strata: " + level + " " + message + (thrown == null ? "" : ": " + thrown));
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
      moveAsideIfFull(file);
      out =
          new PrintStream(
              Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
              false,
              StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      toStderr = true;
    }
  }

  /**
   * Another command may be moving it at the same moment: then its move stands, and this one
   * appends.
   */
  private void moveAsideIfFull(Path file) {
    try {
      if (Files.size(file) > maxBytes) {
        Files.move(
            file,
            file.resolveSibling(file.getFileName() + ".1"),
            StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException e) {
      // No file yet, or it was just moved.
    }
  }
}
