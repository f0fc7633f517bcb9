package io.strata.fuse;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.strata.core.security.ActingFor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import ru.serce.jnrfuse.struct.FuseContext;

/**
 * The local account a FUSE request comes from, as the worker acts for it ({@link ActingFor}): the
 * uid and gid the kernel put in the request and the supplementary groups its process has now
 * ({@code /proc/PID/status}, where the kernel's own checks read them too). A process gone before
 * its groups are read acts with none: that can only refuse, never allow more.
 */
final class CallerAccount {
  private CallerAccount() {}

  static ActingFor of(FuseContext c) {
    int uid = (int) c.uid.get();
    // Root's groups decide nothing: the kernel lets it past every permission bit.
    return new ActingFor(uid, (int) c.gid.get(), uid == 0 ? List.of() : groups(c.pid.get()));
  }

  static List<Integer> groups(long pid) {
    List<String> status;
    try {
      status = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"), UTF_8);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
    for (String line : status) {
      if (line.startsWith("Groups:")) {
        List<Integer> groups = new ArrayList<>();
        for (String g : line.substring("Groups:".length()).trim().split("\\s+", -1)) {
          if (!g.isEmpty()) {
            groups.add((int) Long.parseLong(g));
          }
        }
        return groups;
      }
    }
    return List.of();
  }
}
