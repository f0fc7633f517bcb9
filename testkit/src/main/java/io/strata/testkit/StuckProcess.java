package io.strata.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Why a process does not go away: the kernel's view of each of its threads (state, and for a thread
 * in uninterruptible sleep, the kernel stack it waits in, e.g. a FUSE request nobody answers). A
 * SIGKILLed process lingers only there, and a test that waited for it forever would hide where.
 */
final class StuckProcess {
  private static final int MAX_STACKS = 8;

  private StuckProcess() {}

  /** One line per thread that is not merely sleeping, with the kernel stacks of up to eight. */
  static String describe(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    StringBuilder out = new StringBuilder("pid " + pid);
    int stacks = 0;
    try (Stream<Path> threads = Files.list(tasks)) {
      for (Path t : threads.sorted().toList()) {
        String stat = read(t.resolve("stat"));
        // The state follows the command name, which is in parentheses and may hold spaces.
        int close = stat.lastIndexOf(')');
        char state = close > 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
        if (state == 'S') {
          continue;
        }
        out.append("\n  thread ")
            .append(t.getFileName())
            .append(' ')
            .append(state)
            .append(" in ")
            .append(read(t.resolve("wchan")));
        if (state == 'D' && stacks++ < MAX_STACKS) {
          read(t.resolve("stack")).lines().forEach(l -> out.append("\n      ").append(l));
        }
      }
    } catch (IOException e) {
      out.append(" (gone, or /proc unreadable: ").append(e.getMessage()).append(')');
    }
    return out.toString();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p).strip();
    } catch (IOException e) {
      return "?";
    }
  }
}
