package io.strata.master.service;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.MasterKeys;
import io.strata.core.proto.MasterStatus;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterPeers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a master starts, it asks every configured peer that already runs which masters that peer
 * was configured with, and refuses to start on a disagreement: a mistyped address would otherwise
 * split the masters into groups that never form a quorum, silently. Lists agree when they are
 * equal, or when one holds the other with the same pairing of RPC and journal addresses (a master
 * being added to or removed from the group).
 *
 * <p>It also learns how a master with no journal yet should start: if a running peer leads or
 * follows in a group that does not hold this master, this master is joining, and starts with that
 * group's members (see {@link io.strata.master.journal.MasterJournal}).
 */
public final class PeerAgreement {
  private static final Logger LOG = LoggerFactory.getLogger(PeerAgreement.class);

  private PeerAgreement() {}

  /**
   * Checks every reachable peer; returns the current members of a running group, if a peer reported
   * them.
   */
  public static Optional<List<String>> verify(MasterPeers own, PeerClients clients) {
    List<String> mine = own.describeAll();
    Optional<List<String>> running = Optional.empty();
    for (MasterPeers.Peer peer : own.peers()) {
      if (peer.equals(own.own())) {
        continue;
      }
      MasterStatus theirs;
      try {
        theirs = clients.status(peer.rpc(), Quorum.STATUS_TIMEOUT);
      } catch (StrataException e) {
        LOG.debug("master {} not up yet: {}", peer.rpc(), e.oneLine());
        continue;
      }
      if (!agree(mine, theirs.getConfiguredMastersList())) {
        throw StrataException.invalidArgument(
            "the master at "
                + peer.rpc()
                + " is configured with masters "
                + theirs.getConfiguredMastersList()
                + " but this one with "
                + mine
                + "; list every master identically in "
                + CommonKeys.MASTER_RPC_ADDRESSES.name()
                + " and "
                + MasterKeys.JOURNAL_ADDRESSES.name());
      }
      if (running.isEmpty()
          && theirs.getMembersCount() > 0
          && (theirs.getRole().equals("LEADER") || theirs.getRole().equals("FOLLOWER"))) {
        running = Optional.of(theirs.getMembersList());
      }
    }
    return running;
  }

  static boolean agree(List<String> a, List<String> b) {
    Map<String, String> pa = pairs(a);
    Map<String, String> pb = pairs(b);
    for (Map.Entry<String, String> e : pa.entrySet()) {
      String other = pb.get(e.getKey());
      if (other != null && !other.equals(e.getValue())) {
        return false;
      }
    }
    return pa.keySet().containsAll(pb.keySet()) || pb.keySet().containsAll(pa.keySet());
  }

  /** rpc address → journal address. */
  private static Map<String, String> pairs(List<String> described) {
    Map<String, String> m = new HashMap<>();
    for (String d : described) {
      int eq = d.indexOf('=');
      m.put(d.substring(0, eq), d.substring(eq + 1));
    }
    return m;
  }
}
