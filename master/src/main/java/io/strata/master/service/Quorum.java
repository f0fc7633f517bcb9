package io.strata.master.service;

import io.strata.core.net.HostPort;
import io.strata.core.process.Version;
import io.strata.core.proto.MasterStatus;
import io.strata.core.proto.QuorumInfo;
import io.strata.core.proto.QuorumMember;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterJournal;
import io.strata.master.journal.MasterPeers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The master group as operators see it: each member's own status, and the changes they may make
 * (move leadership, add or remove a master). Members are addressed by RPC or journal address.
 * Changes run on the leader; mistakes are refused with one line before anything changes.
 */
public final class Quorum {
  static final Duration STATUS_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(10);

  private final MasterJournal journal;
  private final PeerClients peers;
  private final long startedAtMs;

  public Quorum(MasterJournal journal, PeerClients peers, long startedAtMs) {
    this.journal = journal;
    this.peers = peers;
    this.startedAtMs = startedAtMs;
  }

  /** This master's own status. */
  public MasterStatus localStatus() {
    MasterPeers.Peer own = journal.peers().own();
    MasterStatus.Builder b =
        MasterStatus.newBuilder()
            .setRpcAddress(own.rpc().toString())
            .setJournalAddress(own.journal().toString())
            .addAllConfiguredMasters(journal.peers().describeAll())
            .setStartedAtMs(startedAtMs)
            .setVersion(Version.VERSION);
    try {
      b.setRole(journal.role())
          .setTerm(journal.term())
          .setLastAppliedIndex(journal.lastAppliedIndex());
      journal.leaderRpcAddress().ifPresent(b::setLeaderRpcAddress);
      for (RaftPeer p : journal.currentPeers()) {
        b.addMembers(MasterPeers.rpcAddressOf(p.getId().toString()) + "=" + p.getAddress());
      }
    } catch (StrataException e) {
      b.setRole("STARTING");
    }
    return b.build();
  }

  /** Every member with its role, term, applied index and lag behind the leader. */
  public QuorumInfo info() {
    journal.requireLeader();
    MasterStatus leader = localStatus();
    QuorumInfo.Builder info =
        QuorumInfo.newBuilder()
            .setLeaderRpcAddress(leader.getRpcAddress())
            .setTerm(leader.getTerm());
    for (RaftPeer p : journal.currentPeers()) {
      HostPort rpc = MasterPeers.rpcAddressOf(p.getId().toString());
      QuorumMember.Builder m =
          QuorumMember.newBuilder().setRpcAddress(rpc.toString()).setJournalAddress(p.getAddress());
      try {
        MasterStatus s =
            rpc.toString().equals(leader.getRpcAddress())
                ? leader
                : peers.status(rpc, STATUS_TIMEOUT);
        m.setReachable(true)
            .setRole(s.getRole())
            .setTerm(s.getTerm())
            .setLastAppliedIndex(s.getLastAppliedIndex())
            .setLag(Math.max(0, leader.getLastAppliedIndex() - s.getLastAppliedIndex()));
      } catch (StrataException e) {
        m.setReachable(false).setRole("UNAVAILABLE").setError(e.getMessage());
      }
      info.addMembers(m);
    }
    return info.build();
  }

  public void elect(String address) {
    journal.requireLeader();
    RaftPeer target = member(address);
    if (MasterPeers.rpcAddressOf(target.getId().toString())
        .toString()
        .equals(journal.peers().own().rpc().toString())) {
      return;
    }
    journal.transferLeadership(target.getId(), TRANSFER_TIMEOUT);
  }

  public void add(String rpcAddress) {
    journal.requireLeader();
    HostPort rpc = HostPort.parse(rpcAddress, "master address");
    if (find(rpcAddress).isPresent()) {
      throw StrataException.alreadyExists(rpcAddress + " is already a master of the group");
    }
    MasterStatus joining;
    try {
      joining = peers.status(rpc, STATUS_TIMEOUT);
    } catch (StrataException e) {
      throw StrataException.unavailable(
          "no master answers at "
              + rpcAddress
              + "; start it first (with the new "
              + "address lists) and try again",
          e);
    }
    List<RaftPeer> members = new ArrayList<>(journal.currentPeers());
    members.add(
        RaftPeer.newBuilder()
            .setId(
                new MasterPeers.Peer(HostPort.parse(joining.getJournalAddress(), "journal"), rpc)
                    .id())
            .setAddress(joining.getJournalAddress())
            .build());
    journal.setMembers(members);
  }

  public void remove(String address) {
    journal.requireLeader();
    RaftPeer target = member(address);
    if (target.getId().toString().equals(journal.peers().own().id())) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          address + " is the leader; elect another master first (fsadmin journal quorum elect)");
    }
    List<RaftPeer> members = new ArrayList<>(journal.currentPeers());
    members.remove(target);
    if (members.size() < 2) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "removing " + address + " would leave the leader without a follower");
    }
    journal.setMembers(members);
  }

  private RaftPeer member(String address) {
    return find(address)
        .orElseThrow(
            () ->
                StrataException.invalidArgument(
                    address
                        + " is not a master of the "
                        + "group (members: "
                        + journal.currentPeers().stream()
                            .map(
                                p ->
                                    MasterPeers.rpcAddressOf(p.getId().toString())
                                        + "/"
                                        + p.getAddress())
                            .toList()
                        + ")"));
  }

  private Optional<RaftPeer> find(String address) {
    HostPort.parse(address, "master address");
    return journal.currentPeers().stream()
        .filter(
            p ->
                p.getAddress().equals(address)
                    || MasterPeers.rpcAddressOf(p.getId().toString()).toString().equals(address))
        .findFirst();
  }
}
