package io.strata.shell.admin;

import io.strata.core.proto.ClusterReport;
import io.strata.core.proto.GetClusterReportRequest;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.WorkerReport;
import io.strata.core.proto.WorkerState;
import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import java.io.PrintStream;
import java.util.Locale;
import picocli.CommandLine.Command;

/** {@code strata fsadmin report}. */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Show the masters, the mounts, every worker with its state, capacity and cache use.")
final class ReportCommand implements Runnable {
  private final ShellContext ctx;

  ReportCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ClusterReport r = ctx.master().call("getClusterReport",
        stub -> stub.getClusterReport(GetClusterReportRequest.getDefaultInstance()));
    PrintStream out = ctx.out();
    out.println("Strata " + r.getVersion() + ", leader " + r.getLeaderRpcAddress() + ", up since "
        + Formats.time(r.getLeaderStartedAtMs()));
    out.println();
    out.println("Masters:");
    QuorumTable.print(out, r.getMastersList());
    out.println();
    out.println("Mounts:");
    for (MountPoint m : r.getMountsList()) {
      out.printf("  %-22s %s%s%n", m.getPath(), m.getUfsUri(), m.getReadOnly() ? " (read-only)" : "");
    }
    out.println();
    out.printf("Cluster configuration: version %d, hash %s%n", r.getConfVersion(), r.getConfHash());
    out.println();
    long live = r.getWorkersList().stream().filter(w -> w.getInfo().getState() == WorkerState.LIVE).count();
    out.printf("Workers: %d live of %d%n", live, r.getWorkersCount());
    out.printf("  %-22s %-15s %10s %10s %8s %10s  %s%n", "ADDRESS", "STATE", "CAPACITY", "USED", "PAGES", "HEARTBEAT",
        "CONFIGURATION");
    long capacity = 0;
    long used = 0;
    for (WorkerReport w : r.getWorkersList()) {
      capacity += w.getUsage().getCapacityBytes();
      used += w.getUsage().getUsedBytes();
      out.printf("  %-22s %-15s %10s %10s %8d %10s  %s%n", w.getInfo().getId(), w.getInfo().getState(),
          Formats.bytes(w.getUsage().getCapacityBytes()), Formats.bytes(w.getUsage().getUsedBytes()),
          w.getUsage().getPagesCached(), heartbeat(w.getLastHeartbeatAgeMs()), confState(w, r.getConfHash()));
    }
    out.println();
    out.printf("Cache: %s used of %s (%s)%n", Formats.bytes(used), Formats.bytes(capacity),
        capacity == 0 ? "0%" : Formats.percent(used, capacity));
  }

  private static String confState(WorkerReport w, String clusterHash) {
    if (w.getConfHash().isEmpty()) {
      return "(not reported yet)";
    }
    return w.getConfHash() + (w.getConfHash().equals(clusterHash) ? " in sync" : " STALE");
  }

  private static String heartbeat(long ageMs) {
    return ageMs < 0 ? "never" : String.format(Locale.ROOT, "%.1fs ago", ageMs / 1000.0);
  }
}
