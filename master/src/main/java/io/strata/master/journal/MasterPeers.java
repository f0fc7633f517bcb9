package io.strata.master.journal;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.net.HostPort;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;

/**
 * The masters of the group as configuration lists them: for each, its Raft (journal) address and
 * its RPC address, paired by position; and which of them this process is. Masters whose lists
 * disagree would form different groups, so mistakes here stop the master at start.
 */
public record MasterPeers(List<Peer> peers, int self) {
  /** One master: where its Raft server and its gRPC service listen. */
  public record Peer(HostPort journal, HostPort rpc) {
    /**
     * The Raft peer id: the RPC address, so that any master can turn a leader's id into the address
     * clients should call, even for a master added to the group after it started.
     */
    public String id() {
      return rpc.host() + "_" + rpc.port();
    }

    /** "rpcHost:port=journalHost:port", how masters compare their configured lists. */
    public String describe() {
      return rpc + "=" + journal;
    }
  }

  /** A peer from its {@link Peer#describe()} form. */
  public static Peer parse(String described) {
    int eq = described.indexOf('=');
    if (eq < 0) {
      throw StrataException.invalidArgument("malformed master description '" + described + "'");
    }
    return new Peer(
        HostPort.parse(described.substring(eq + 1), "journal address"),
        HostPort.parse(described.substring(0, eq), "rpc address"));
  }

  /** The RPC address a peer id names. */
  public static HostPort rpcAddressOf(String peerId) {
    int sep = peerId.lastIndexOf('_');
    return HostPort.parse(peerId.substring(0, sep) + ":" + peerId.substring(sep + 1), "master id");
  }

  public static MasterPeers fromConf(Configuration conf) {
    String host = conf.get(CommonKeys.MASTER_HOSTNAME);
    HostPort ownJournal = new HostPort(host, conf.get(MasterKeys.JOURNAL_PORT));
    List<String> journalList = conf.get(MasterKeys.JOURNAL_ADDRESSES);
    List<HostPort> rpcs = MasterClient.addresses(conf);
    List<HostPort> journals = new ArrayList<>();
    if (journalList.isEmpty()) {
      journals.add(ownJournal);
    } else {
      for (String a : journalList) {
        journals.add(HostPort.parse(a, MasterKeys.JOURNAL_ADDRESSES.name()));
      }
    }
    if (journals.size() != rpcs.size()) {
      throw StrataException.invalidArgument(
          MasterKeys.JOURNAL_ADDRESSES.name()
              + " lists "
              + journals.size()
              + " masters but "
              + CommonKeys.MASTER_RPC_ADDRESSES.name()
              + " lists "
              + rpcs.size()
              + "; list every master in both, in the same order");
    }
    if (journals.stream().distinct().count() != journals.size()) {
      throw StrataException.invalidArgument(
          MasterKeys.JOURNAL_ADDRESSES.name() + " lists a master twice: " + journals);
    }
    int self = journals.indexOf(ownJournal);
    if (self < 0) {
      throw StrataException.invalidArgument(
          "this master ("
              + ownJournal
              + ", from "
              + CommonKeys.MASTER_HOSTNAME.name()
              + " and "
              + MasterKeys.JOURNAL_PORT.name()
              + ") is not in "
              + MasterKeys.JOURNAL_ADDRESSES.name()
              + " "
              + journals);
    }
    List<Peer> peers = new ArrayList<>();
    for (int i = 0; i < journals.size(); i++) {
      peers.add(new Peer(journals.get(i), rpcs.get(i)));
    }
    return new MasterPeers(List.copyOf(peers), self);
  }

  public Peer own() {
    return peers.get(self);
  }

  /** The configured masters, sorted, in {@link Peer#describe()} form. */
  public List<String> describeAll() {
    return peers.stream().map(Peer::describe).sorted().toList();
  }
}
