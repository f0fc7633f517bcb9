package io.strata.core.ufs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's umask, as /proc/self/status shows it (Linux 4.7+; the JDK has no call for it),
 * read once: the mode a new file gets when its writer asks for none. 022 when it cannot be read.
 */
final class Umask {
  private static final int DEFAULT = 022;
  private static final int CURRENT = read();

  private Umask() {}

  static int current() {
    return CURRENT;
  }

  private static int read() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Umask:")) {
          return Integer.parseInt(line.substring(6).strip(), 8);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // Not Linux, or an old kernel.
    }
    return DEFAULT;
  }
}
