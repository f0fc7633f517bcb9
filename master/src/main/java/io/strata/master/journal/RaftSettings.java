package io.strata.master.journal;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.Security;
import io.strata.core.security.SecurityMode;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Ratis' settings for the master group, from Strata's configuration.
 *
 * <p>Election timeouts default to 500–1000 ms: a dead leader is noticed within a second and a new
 * one elected in about one more round trip, which keeps failover under the 3 s aim, while staying
 * well above the GC pauses and scheduling hiccups of a busy 2-core host, so no election is held for
 * a leader that is merely slow. Pre-vote keeps a restarted or partitioned master from disturbing a
 * healthy leader.
 */
public final class RaftSettings {
  private static final TimeDuration LONE_FIRST_ELECTION =
      TimeDuration.valueOf(50, TimeUnit.MILLISECONDS);

  private RaftSettings() {}

  static RaftProperties from(Configuration conf, MasterPeers peers, Path folder) {
    Duration min = conf.get(MasterKeys.ELECTION_TIMEOUT_MIN);
    Duration max = conf.get(MasterKeys.ELECTION_TIMEOUT_MAX);
    if (max.compareTo(min) <= 0) {
      throw StrataException.invalidArgument(
          MasterKeys.ELECTION_TIMEOUT_MAX.name()
              + " ("
              + max.toMillis()
              + " ms) must exceed "
              + MasterKeys.ELECTION_TIMEOUT_MIN.name()
              + " ("
              + min.toMillis()
              + " ms)");
    }
    RaftProperties props = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(props, List.of(folder.toFile()));
    GrpcConfigKeys.Server.setHost(props, conf.get(MasterKeys.BIND_HOST));
    GrpcConfigKeys.Server.setPort(props, peers.own().journal().port());
    RaftServerConfigKeys.Rpc.setTimeoutMin(props, millis(min));
    RaftServerConfigKeys.Rpc.setTimeoutMax(props, millis(max));
    // A lone master has nobody to hear from: waiting out a full timeout before it leads only
    // delays its start (by 0.75 s on average).
    boolean alone = peers.peers().size() == 1;
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(
        props, alone ? LONE_FIRST_ELECTION : millis(min));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(
        props, alone ? LONE_FIRST_ELECTION.multiply(2) : millis(max));
    RaftServerConfigKeys.LeaderElection.setPreVote(props, true);
    RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(props, conf.get(MasterKeys.READ_LEASE));
    long period = conf.get(MasterKeys.CHECKPOINT_PERIOD_ENTRIES);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props, period);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(props, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(props, true);
    RaftServerConfigKeys.Log.setPurgeGap(props, (int) Math.min(Integer.MAX_VALUE, period));
    // Keep the log back to the snapshot before the latest, so a master whose latest snapshot is
    // damaged can replay from the older one (VerifiedSnapshotStorage).
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(props, 2 * period);
    RaftServerConfigKeys.Log.setSegmentSizeMax(
        props, SizeInBytes.valueOf(conf.get(MasterKeys.LOG_SEGMENT_SIZE)));
    return props;
  }

  /**
   * Refuses, in one line, a master whose Raft port others can reach with TLS but no CA file of the
   * cluster's, and a TOKEN-mode one they can reach without TLS: Ratis authenticates its peers by
   * mutual TLS only (it has no hook for a token on its own calls), so anyone on the network could
   * otherwise join the group or remove its members.
   */
  public static void requireAuthenticatedRaft(Configuration conf, Security security) {
    String host = conf.get(MasterKeys.BIND_HOST);
    if (conf.get(SecurityKeys.TLS_ENABLED)
        && conf.get(SecurityKeys.TLS_CA_FILE).isEmpty()
        && !Security.isLoopback(host)) {
      // Without a CA file the JDK's trust store decides: every certificate any public authority
      // signed would pass the Raft port's mutual TLS, and with it join the group.
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "masters on "
              + host
              + " with TLS need "
              + SecurityKeys.TLS_CA_FILE.name()
              + ": without it the Raft port would trust every certificate a public authority"
              + " signed; set it to the authority that signs the cluster's certificates");
    }
    if (security.mode() == SecurityMode.TOKEN
        && security.tls().isEmpty()
        && !Security.isLoopback(host)) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "in TOKEN mode masters authenticate one another on the Raft port by mutual TLS, and "
              + MasterKeys.BIND_HOST.name()
              + " is "
              + host
              + ": set "
              + SecurityKeys.TLS_ENABLED.name()
              + "=true with a certificate (docs/operations.md, TLS), or bind the masters to"
              + " 127.0.0.1");
    }
  }

  /**
   * Ratis' objects: with TLS, its server and its clients (the group's own, and admin calls) all use
   * mutual TLS, so only holders of a certificate from a trusted authority reach the Raft port.
   * Ratis has no hook for a header on its own calls, so a certificate is the one way to
   * authenticate them.
   */
  static Parameters parameters(Optional<RaftTls> tls) {
    Parameters p = new Parameters();
    tls.ifPresent(
        t -> {
          GrpcTlsConfig conf = new GrpcTlsConfig(t.keys(), t.trust(), true);
          GrpcConfigKeys.TLS.setConf(p, conf);
          GrpcConfigKeys.Server.setTlsConf(p, conf);
          GrpcConfigKeys.Client.setTlsConf(p, conf);
          GrpcConfigKeys.Admin.setTlsConf(p, conf);
        });
    return p;
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }
}
