package io.strata.shell.fs;

import io.strata.core.proto.MountPoint;
import io.strata.core.ufs.Mount;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Mounts as the shell shows them: one line each, credentials redacted. */
public final class MountLines {
  private MountLines() {}

  /** What to add to "mounted"/"unmounted" when some workers had not applied the change yet. */
  static String lag(io.strata.core.proto.MountTableView view) {
    int n = view.getWorkersBehind();
    return n == 0
        ? ""
        : " ("
            + n
            + (n == 1 ? " worker has" : " workers have")
            + " not applied it yet; they will with their next heartbeat)";
  }

  public static void print(PrintStream out, List<MountPoint> mounts) {
    for (MountPoint p : mounts) {
      Mount m = Mount.fromProto(p);
      List<String> flags = new ArrayList<>();
      if (m.readOnly()) {
        flags.add("read-only");
      }
      if (m.shared()) {
        flags.add("shared");
      }
      for (Map.Entry<String, String> o : m.redactedOptions().entrySet()) {
        flags.add(o.getKey() + "=" + o.getValue());
      }
      out.printf(
          "  %-22s %s%s%n",
          m.path(), m.ufsUri(), flags.isEmpty() ? "" : "  (" + String.join(", ", flags) + ")");
    }
  }
}
