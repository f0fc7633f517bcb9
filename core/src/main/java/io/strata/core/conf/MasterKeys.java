package io.strata.core.conf;

import java.time.Duration;
import java.util.List;

/** Keys of the master process. */
public final class MasterKeys {
  private MasterKeys() {}

  public static final ConfKey<String> BIND_HOST =
      ConfKey.string("strata.master.bind.host")
          .defaultValue("127.0.0.1")
          .scope(Scope.MASTER)
          .description(
              "Address the master's servers listen on (loopback by default; 0.0.0.0 or a host's address for a multi-host cluster, which needs strata.security.mode=TOKEN).")
          .build();

  public static final ConfKey<Integer> JOURNAL_PORT =
      ConfKey.integer("strata.master.embedded.journal.port")
          .defaultValue("7701")
          .scope(Scope.MASTER)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port of the master's Raft (Apache Ratis) server.")
          .build();

  public static final ConfKey<List<String>> JOURNAL_ADDRESSES =
      ConfKey.list("strata.master.embedded.journal.addresses")
          .defaultValue("")
          .scope(Scope.MASTER)
          .description(
              "host:port of every master's Raft server, in the same order as strata.master.rpc.addresses; "
                  + "empty means a group of one at strata.master.hostname:strata.master.embedded.journal.port.")
          .build();

  public static final ConfKey<Integer> WEB_PORT =
      ConfKey.integer("strata.master.web.port")
          .defaultValue("7702")
          .scope(Scope.MASTER)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port serving /metrics, /health and /stacks of the master.")
          .build();

  public static final ConfKey<String> JOURNAL_FOLDER =
      ConfKey.string("strata.master.journal.folder")
          .defaultValue("${strata.home}/journal")
          .scope(Scope.MASTER)
          .description("Folder of the master's Raft log and snapshots.")
          .build();

  public static final ConfKey<Long> CHECKPOINT_PERIOD_ENTRIES =
      ConfKey.longKey("strata.master.journal.checkpoint.period.entries")
          .defaultValue("10000")
          .scope(Scope.MASTER)
          .check(n -> n > 0, "must be positive")
          .description(
              "Log entries between two snapshots of the master state; the log before a snapshot is purged.")
          .build();

  public static final ConfKey<String> ROOT_UFS =
      ConfKey.string("strata.master.mount.table.root.ufs")
          .defaultValue("${strata.home}/underFSStorage")
          .scope(Scope.MASTER)
          .description("Under-storage mounted at /: a local folder or a URI such as file:///data.")
          .build();

  public static final ConfKey<List<String>> MOUNT_LOCAL_ROOTS =
      ConfKey.list("strata.master.mount.local.roots")
          .defaultValue("")
          .scope(Scope.MASTER)
          .check(
              roots -> roots.stream().allMatch(r -> r.startsWith("/")),
              "expected absolute folders, comma-separated, e.g. /data,/mnt/datasets")
          .description(
              "Local folders that `fs mount` may mount (file:// URIs), each with what lies below it; "
                  + "empty: any. Set it where workers run as root: a mount of a local folder is read and "
                  + "written by the workers' account, so an admin token could otherwise mount /root or /etc. "
                  + "The folders must not hold links others can change. Applies at start.")
          .build();

  public static final ConfKey<Duration> WORKER_TIMEOUT =
      ConfKey.duration("strata.master.worker.timeout")
          .defaultValue("30s")
          .scope(Scope.MASTER)
          .check(d -> d.toMillis() >= 1000, "must be at least 1s")
          .dynamic()
          .description(
              "A worker silent this long is marked LOST and leaves every client's ring; at least "
                  + "three of the workers' heartbeat intervals when changed while running.")
          .build();

  public static final ConfKey<Duration> ELECTION_TIMEOUT_MIN =
      ConfKey.duration("strata.master.journal.election.timeout.min")
          .defaultValue("500ms")
          .scope(Scope.MASTER)
          .check(d -> d.toMillis() >= 50, "must be at least 50ms")
          .description(
              "A follower that hears nothing from the leader for a random time between this and the "
                  + "maximum starts an election; the leader heartbeats at half of it.")
          .build();

  public static final ConfKey<Duration> ELECTION_TIMEOUT_MAX =
      ConfKey.duration("strata.master.journal.election.timeout.max")
          .defaultValue("1000ms")
          .scope(Scope.MASTER)
          .check(d -> d.toMillis() >= 100, "must be at least 100ms")
          .description("Upper bound of the election timeout; must exceed the minimum.")
          .build();

  public static final ConfKey<Boolean> READ_LEASE =
      ConfKey.bool("strata.master.journal.read.lease.enabled")
          .defaultValue("false")
          .scope(Scope.MASTER)
          .description(
              "Serve cluster-state reads from the leader's lease instead of a read index: one round trip "
                  + "less, linearizable only while clocks drift less than the lease.")
          .build();

  public static final ConfKey<Long> LOG_SEGMENT_SIZE =
      ConfKey.bytes("strata.master.journal.log.segment.size")
          .defaultValue("4MiB")
          .scope(Scope.MASTER)
          .check(n -> n >= 16 * 1024, "must be at least 16KiB")
          .description(
              "Size of one Raft log segment file; whole segments older than the last snapshot are purged.")
          .build();
}
