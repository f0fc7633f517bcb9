package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.GetQuorumInfoRequest;
import io.strata.core.proto.QuorumInfo;
import io.strata.core.proto.QuorumMember;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ClusterLayout;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** fsadmin journal quorum info|elect|add|remove, and fsadmin report, on three forked masters. */
class QuorumTest {
  private static ForkedCluster cluster;
  private static ShellRunner shell;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        ForkedCluster.builder()
            .masters(3)
            .workers(1)
            .property(MasterKeys.CHECKPOINT_PERIOD_ENTRIES, "10")
            .property(MasterKeys.LOG_SEGMENT_SIZE, "16KiB")
            .start();
    shell = new ShellRunner(cluster::clientConf);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static QuorumInfo info() {
    try (MasterClient c = new MasterClient(cluster.clientConf())) {
      return c.call("info", s -> s.getQuorumInfo(GetQuorumInfoRequest.getDefaultInstance()));
    }
  }

  @Test
  void info_andReport_showEveryMastersRoleTermAndLag() throws Exception {
    int leader = cluster.awaitLeader(Duration.ofSeconds(30));
    // Run after withoutAQuorum, the two masters it restarted were ready but refused connections a
    // moment later (CI, once): every member must answer first, or this fails saying which did not.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(info().getMembersList())
                    .allMatch(QuorumMember::getReachable, "reachable")
                    .hasSize(3));
    ShellRunner.Run run = shell.run("fsadmin", "journal", "quorum", "info");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("Leader " + cluster.masterRpc(leader), "LEADER", "FOLLOWER");
    assertThat(run.out().lines().filter(l -> l.startsWith("  127.0.0.1:"))).hasSize(3);
    ShellRunner.Run report = shell.run("fsadmin", "report");
    assertThat(report.out()).contains("LEADER", "FOLLOWER", cluster.masterJournal(0).toString());
  }

  @Test
  void elect_makesTheNamedMasterLeader() throws Exception {
    int leader = cluster.awaitLeader(Duration.ofSeconds(30));
    int target = (leader + 2) % 3;
    ShellRunner.Run run =
        shell.run(
            "fsadmin",
            "journal",
            "quorum",
            "elect",
            "--address",
            cluster.masterRpc(target).toString());
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(cluster.awaitLeader(Duration.ofSeconds(30))).isEqualTo(target);
    assertThat(info().getLeaderRpcAddress()).isEqualTo(cluster.masterRpc(target).toString());
  }

  @Test
  void mistakes_areOneLineErrors() {
    ShellRunner.Run stranger =
        shell.run("fsadmin", "journal", "quorum", "elect", "--address", "127.0.0.1:1");
    assertThat(stranger.err())
        .startsWith("strata: INVALID_ARGUMENT: 127.0.0.1:1 is not a master of the group");
    ShellRunner.Run removeLeader =
        shell.run(
            "fsadmin", "journal", "quorum", "remove", "--address", info().getLeaderRpcAddress());
    assertThat(removeLeader.err())
        .contains("FAILED_PRECONDITION", "is the leader; elect another master first");
    assertThat(shell.run("fsadmin", "journal", "quorum", "elect", "--address", "nonsense").err())
        .contains("INVALID_ARGUMENT", "expected host:port");
    assertThat(shell.run("fsadmin", "journal", "quorum", "elect").err()).contains("--address");
  }

  @Test
  void removedMaster_stopsItself_andComesBackAfterFormatAndAdd() throws Exception {
    int leader = cluster.awaitLeader(Duration.ofSeconds(30));
    int follower = (leader + 1) % 3;
    String followerRpc = cluster.masterRpc(follower).toString();

    assertThat(shell.run("fsadmin", "journal", "quorum", "remove", "--address", followerRpc).code())
        .isZero();
    assertThat(info().getMembersList())
        .extracting(QuorumMember::getRpcAddress)
        .doesNotContain(followerRpc);
    ShellRunner.Run lastFollower =
        shell.run(
            "fsadmin",
            "journal",
            "quorum",
            "remove",
            "--address",
            cluster.masterRpc(3 - leader - follower).toString());
    assertThat(lastFollower.err()).contains("would leave the leader without a follower");

    // Cut off from the group, the removed master notices and exits rather than linger.
    await().atMost(Duration.ofSeconds(30)).until(() -> !cluster.master(follower).isAlive());
    assertThat(cluster.master(follower).exitValue()).isEqualTo(3);

    var formatConf = cluster.clientConf();
    formatConf.set(
        MasterKeys.JOURNAL_FOLDER,
        cluster.masterConf(follower, cluster.masterPorts()).get(MasterKeys.JOURNAL_FOLDER.name()));
    ShellRunner.Run declined = new ShellRunner(() -> formatConf).runWithInput("n\n", "format");
    assertThat(declined.out()).contains("Wipe the master journal", "not formatted");
    assertThat(new ShellRunner(() -> formatConf).run("format", "-y").out()).contains("formatted");

    cluster.master(follower).start();
    // A JVM start and a Raft join: on a loaded 2-core host this took over 30 s once.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              ShellRunner.Run add =
                  shell.run("fsadmin", "journal", "quorum", "add", "--address", followerRpc);
              System.out.println("quorum add: " + add.code() + " " + add.out() + add.err());
              return add.code() == 0;
            });
    awaitCaughtUp(followerRpc);
  }

  @Test
  void newMaster_isAdded_andCatchesUpFromASnapshotAfterTheLogWasPurged() throws Exception {
    // Many changes with snapshots every 10 entries: the log a new master would need is purged.
    String worker = cluster.workerId(0);
    for (int i = 0; i < 40; i++) {
      shell.run("fsadmin", i % 2 == 0 ? "decommissionWorker" : "recommissionWorker", worker);
    }
    List<ClusterLayout.MasterPorts> ports = new ArrayList<>(cluster.masterPorts());
    ports.add(ClusterLayout.MasterPorts.free());
    ForkedProcess fourth =
        cluster.process("master-3", ForkedCluster.MASTER_MAIN, cluster.masterConf(3, ports));
    String fourthRpc = "127.0.0.1:" + ports.get(3).rpc();
    try {
      fourth.start();
      fourth.awaitReady(Duration.ofSeconds(60));
      assertThat(shell.run("fsadmin", "journal", "quorum", "add", "--address", fourthRpc).code())
          .isZero();
      awaitCaughtUp(fourthRpc);
      assertThat(shell.run("fsadmin", "journal", "quorum", "add", "--address", fourthRpc).err())
          .contains("ALREADY_EXISTS");
      assertThat(shell.run("fsadmin", "journal", "quorum", "remove", "--address", fourthRpc).code())
          .isZero();
    } finally {
      if (info().getMembersList().stream().anyMatch(m -> m.getRpcAddress().equals(fourthRpc))) {
        // A failure above must not leave the shared group with a fourth member for the next tests.
        shell.run("fsadmin", "journal", "quorum", "remove", "--address", fourthRpc);
      }
      fourth.kill();
    }
  }

  /**
   * Within one entry of the leader: a follower applies the leader's last entry only when a later
   * heartbeat tells it that entry is committed, and on a loaded host healthy followers were seen at
   * lag 1 for half a minute, and once (CI, with a FUSE suite just before) for over 30 s; a master
   * that missed the purged log would be ~100 behind, and stay there.
   */
  private static void awaitCaughtUp(String rpc) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                info().getMembersList().stream()
                    .anyMatch(
                        m ->
                            m.getRpcAddress().equals(rpc)
                                && m.getReachable()
                                && m.getLag() <= 1
                                && m.getRole().equals("FOLLOWER")));
  }

  @Test
  void withoutAQuorum_commandsSayTheGroupHasNoLeader() throws Exception {
    cluster.awaitLeader(Duration.ofSeconds(30));
    List<Integer> killed = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        cluster.master(i).kill();
        killed.add(i);
      }
      var conf = cluster.clientConf();
      conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "3s");
      ShellRunner noQuorum = new ShellRunner(() -> conf);
      // A leader cut off from the others steps down once it has not heard from them for a while.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> noQuorum.run("fsadmin", "journal", "quorum", "info").code() == 1);
      ShellRunner.Run run = noQuorum.run("fsadmin", "journal", "quorum", "info");
      assertThat(run.err())
          .startsWith("strata: UNAVAILABLE: no master answered")
          .contains("no leader");
    } finally {
      for (int i : killed) {
        cluster.master(i).start();
      }
      for (int i : killed) {
        cluster.master(i).awaitReady(Duration.ofSeconds(60));
      }
    }
  }
}
