package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.WorkerState;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ClusterLayout;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Workers leaving and joining the ring: by failure (LOST), by the operator (DECOMMISSIONED). */
class WorkerMembershipTest {
  private static ForkedCluster cluster;
  private static MasterClient master;
  private static ShellRunner shell;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(2)
            .property(MasterKeys.WORKER_TIMEOUT, "2s")
            .start();
    master = new MasterClient(cluster.clientConf());
    shell = new ShellRunner(cluster::clientConf);
  }

  @AfterAll
  static void stop() {
    master.close();
    cluster.close();
  }

  private static WorkerState state(String workerId) {
    ClusterView v =
        master.call("view", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
    return v.getWorkersList().stream()
        .filter(w -> w.getId().equals(workerId))
        .findFirst()
        .orElseThrow()
        .getState();
  }

  @Test
  void killedWorker_becomesLost_leavesTheRing_andIsLiveAgainWhenRestarted() throws Exception {
    var conf = cluster.clientConf();
    conf.set(UserKeys.CLUSTER_VIEW_REFRESH, "200ms");
    try (FileSystem fs = FileSystem.create(conf)) {
      for (int i = 0; i < 20; i++) {
        try (FileOutStream out = fs.create("/lost/f" + i, WriteOptions.overwriting())) {
          out.write(("file " + i).getBytes(StandardCharsets.UTF_8));
        }
      }
      String id = cluster.workerId(1);
      cluster.worker(1).kill();
      await().atMost(Duration.ofSeconds(15)).until(() -> state(id) == WorkerState.LOST);
      for (int i = 0; i < 20; i++) {
        try (FileInStream in = fs.open("/lost/f" + i)) {
          assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("file " + i);
        }
      }
      assertThat(shell.run("fsadmin", "report").out()).contains("Workers: 1 live of 2", "LOST");
      // Gone for good: removed, it leaves the report and the view; a LIVE one cannot be.
      assertThat(shell.run("fsadmin", "removeWorker", cluster.workerId(0)).err())
          .as("a worker that runs")
          .contains("FAILED_PRECONDITION");
      assertThat(shell.run("fsadmin", "removeWorker", id).out()).contains("removed " + id);
      assertThat(shell.run("fsadmin", "report").out()).contains("Workers: 1 live of 1");
      // It registers anew when it starts again.
      cluster.restart(cluster.worker(1));
      await().atMost(Duration.ofSeconds(15)).until(() -> state(id) == WorkerState.LIVE);
    }
  }

  @Test
  void decommissionedWorker_staysOutAcrossARestart_untilRecommissioned() throws Exception {
    String id = cluster.workerId(0);
    assertThat(shell.run("fsadmin", "decommissionWorker", id).out())
        .contains("decommissioned " + id);
    assertThat(state(id)).isEqualTo(WorkerState.DECOMMISSIONED);
    cluster.worker(0).stop();
    cluster.restart(cluster.worker(0));
    assertThat(state(id)).isEqualTo(WorkerState.DECOMMISSIONED);
    assertThat(shell.run("fsadmin", "decommissionWorker", "127.0.0.1:1").err())
        .isEqualTo("strata: NOT_FOUND: no worker 127.0.0.1:1 is registered\n");
    assertThat(shell.run("fsadmin", "recommissionWorker", id).code()).isZero();
    assertThat(state(id)).isEqualTo(WorkerState.LIVE);
    assertThat(shell.run("fsadmin", "recommissionWorker", id).err())
        .contains("FAILED_PRECONDITION", "not decommissioned");
  }

  @Test
  void masterListingOtherMasters_refusesToStart() throws Exception {
    List<ClusterLayout.MasterPorts> wrong =
        List.of(cluster.masterPorts().get(0), ClusterLayout.MasterPorts.free());
    Map<String, String> conf = cluster.masterConf(1, wrong);
    // The running master lists only itself, with another journal port than this one believes.
    conf.put(
        MasterKeys.JOURNAL_ADDRESSES.name(),
        "127.0.0.1:1," + "127.0.0.1:" + wrong.get(1).journal());
    conf.put(
        CommonKeys.MASTER_RPC_ADDRESSES.name(),
        cluster.masterRpc(0) + ",127.0.0.1:" + wrong.get(1).rpc());
    ForkedProcess stray = cluster.process("stray-master", ForkedCluster.MASTER_MAIN, conf);
    stray.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> !stray.isAlive());
    assertThat(stray.exitValue()).isEqualTo(2);
    assertThat(stray.tail())
        .contains("is configured with masters", "list every master identically");
  }
}
