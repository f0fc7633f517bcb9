package io.strata.shell.admin;

import io.strata.core.proto.QuorumMember;
import java.io.PrintStream;
import java.util.List;

/** Prints the masters of the group, one line each. */
final class QuorumTable {
  private QuorumTable() {}

  static void print(PrintStream out, List<QuorumMember> members) {
    out.printf(
        "  %-22s %-22s %-12s %6s %12s %8s%n",
        "RPC ADDRESS", "JOURNAL ADDRESS", "ROLE", "TERM", "APPLIED", "LAG");
    for (QuorumMember m : members) {
      if (m.getReachable()) {
        out.printf(
            "  %-22s %-22s %-12s %6d %12d %8d%n",
            m.getRpcAddress(),
            m.getJournalAddress(),
            m.getRole(),
            m.getTerm(),
            m.getLastAppliedIndex(),
            m.getLag());
      } else {
        out.printf(
            "  %-22s %-22s %-12s (%s)%n",
            m.getRpcAddress(), m.getJournalAddress(), m.getRole(), m.getError());
      }
    }
  }
}
