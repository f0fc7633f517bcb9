package io.strata.shell.admin;

import io.strata.core.proto.ClusterReport;
import io.strata.core.proto.GetClusterReportRequest;
import io.strata.core.proto.WorkerReport;
import io.strata.core.proto.WorkerState;
import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import io.strata.shell.fs.MountLines;
import java.io.PrintStream;
import java.util.Locale;
import picocli.CommandLine.Command;

/** {@code strata fsadmin report [capacity]}. */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description =
        "Show the masters, the mounts, every worker with its state, capacity and cache use; "
            + "'report capacity' shows every cache tier of every worker, and what each keeps "
            + "pinned (fs pin) of its pin capacity; pinned data over it is evicted like any other.")
final class ReportCommand implements Runnable {
  private final ShellContext ctx;

  @picocli.CommandLine.Parameters(
      arity = "0..1",
      paramLabel = "capacity",
      description = "Only the cache tiers.")
  String section;

  ReportCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    if (section != null && !section.equals("capacity")) {
      throw io.strata.core.status.StrataException.invalidArgument(
          "unknown report '" + section + "' (try: capacity)");
    }
    ClusterReport r =
        ctx.master()
            .call(
                "getClusterReport",
                stub -> stub.getClusterReport(GetClusterReportRequest.getDefaultInstance()));
    PrintStream out = ctx.out();
    if (section != null) {
      printTiers(out, r);
      return;
    }
    out.println(
        "Strata "
            + r.getVersion()
            + ", leader "
            + r.getLeaderRpcAddress()
            + ", up since "
            + Formats.time(r.getLeaderStartedAtMs()));
    out.println();
    out.println("Masters:");
    QuorumTable.print(out, r.getMastersList());
    out.println();
    out.println("Mounts:");
    MountLines.print(out, r.getMountsList());
    out.println();
    out.printf("Cluster configuration: version %d, hash %s%n", r.getConfVersion(), r.getConfHash());
    out.println();
    long live =
        r.getWorkersList().stream().filter(w -> w.getInfo().getState() == WorkerState.LIVE).count();
    out.printf("Workers: %d live of %d%n", live, r.getWorkersCount());
    out.printf(
        "  %-22s %-15s %10s %10s %8s %10s  %s%n",
        "ADDRESS", "STATE", "CAPACITY", "USED", "PAGES", "HEARTBEAT", "CONFIGURATION");
    long capacity = 0;
    long used = 0;
    for (WorkerReport w : r.getWorkersList()) {
      capacity += w.getUsage().getCapacityBytes();
      used += w.getUsage().getUsedBytes();
      out.printf(
          "  %-22s %-15s %10s %10s %8d %10s  %s%n",
          w.getInfo().getId(),
          w.getInfo().getState(),
          Formats.bytes(w.getUsage().getCapacityBytes()),
          Formats.bytes(w.getUsage().getUsedBytes()),
          w.getUsage().getPagesCached(),
          heartbeat(w.getLastHeartbeatAgeMs()),
          confState(w, r.getConfHash()));
    }
    out.println();
    out.printf(
        "Cache: %s used of %s (%s)%n",
        Formats.bytes(used),
        Formats.bytes(capacity),
        capacity == 0 ? "0%" : Formats.percent(used, capacity));
  }

  private static void printTiers(PrintStream out, ClusterReport r) {
    out.printf(
        "%-22s %-5s %-40s %10s %10s %6s %10s%n",
        "WORKER", "TIER", "FOLDER", "CAPACITY", "USED", "USE", "PAGES");
    for (WorkerReport w : r.getWorkersList()) {
      for (io.strata.core.proto.TierUsage t : w.getUsage().getTiersList()) {
        out.printf(
            "%-22s %-5s %-40s %10s %10s %6s %10d%n",
            w.getInfo().getId(),
            t.getTier(),
            t.getDir().isEmpty() ? "-" : t.getDir(),
            Formats.bytes(t.getCapacityBytes()),
            Formats.bytes(t.getUsedBytes()),
            Formats.percent(t.getUsedBytes(), Math.max(1, t.getCapacityBytes())),
            t.getPages());
      }
    }
    out.println();
    out.printf("%-22s %10s %14s %16s%n", "WORKER", "PINNED", "PIN CAPACITY", "OVER CAPACITY");
    for (WorkerReport w : r.getWorkersList()) {
      out.printf(
          "%-22s %10s %14s %16s%n",
          w.getInfo().getId(),
          Formats.bytes(w.getUsage().getPinnedBytes()),
          Formats.bytes(w.getUsage().getPinCapacityBytes()),
          Formats.bytes(w.getUsage().getPinnedOverCapacityBytes()));
    }
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
