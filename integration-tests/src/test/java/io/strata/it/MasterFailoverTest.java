package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Three masters in separate JVMs; faults by SIGKILL. */
class MasterFailoverTest {
  private static ForkedCluster cluster;
  private static MasterClient client;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        ForkedCluster.builder()
            .masters(3)
            .workers(2)
            .property(MasterKeys.CHECKPOINT_PERIOD_ENTRIES, "20")
            .start();
    client = new MasterClient(cluster.clientConf());
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  private static ClusterView view() {
    return client.call(
        "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
  }

  private static double registrations(int master) throws Exception {
    return Scrape.rpcCount(cluster.masterWebPort(master), "master", "RegisterWorker");
  }

  /** What stalled tests print (IntegrityChecker): every process's Java and kernel threads. */
  @Test
  void threadDumps_showEveryProcesssThreads() throws Exception {
    String dumps = cluster.threadDumps();
    assertThat(dumps).contains("== master-0", "Full thread dump", "pid ");
  }

  @Test
  void leaderKilled_newLeaderKnowsEveryWorkerAtOnce_andAReadInProgressSucceeds() throws Exception {
    byte[] data = new byte[6 << 20];
    new Random(1).nextBytes(data);
    var conf = cluster.clientConf();
    conf.set(UserKeys.CLUSTER_VIEW_REFRESH, "200ms");
    try (FileSystem fs = FileSystem.create(conf)) {
      try (FileOutStream out = fs.create("/failover/data.bin", WriteOptions.DEFAULT)) {
        out.write(data);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger reads = new AtomicInteger();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread reader =
          new Thread(
              () -> {
                byte[] chunk = new byte[256 * 1024];
                Random r = new Random(2);
                while (!stop.get() && failure.get() == null) {
                  try (FileInStream in = fs.open("/failover/data.bin")) {
                    int pos = r.nextInt(data.length - chunk.length);
                    in.readFully(pos, chunk, 0, chunk.length);
                    if (!Arrays.equals(chunk, Arrays.copyOfRange(data, pos, pos + chunk.length))) {
                      throw new AssertionError("wrong bytes at " + pos);
                    }
                    reads.incrementAndGet();
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                }
              });
      reader.start();
      int leader = cluster.awaitLeader(Duration.ofSeconds(30));
      double[] before = new double[3];
      for (int i = 0; i < 3; i++) {
        before[i] = i == leader ? 0 : registrations(i);
      }
      cluster.master(leader).kill();

      ClusterView after = view();
      assertThat(after.getWorkersList()).hasSize(2).allMatch(w -> w.getState() == WorkerState.LIVE);
      int next = cluster.awaitLeader(Duration.ofSeconds(30));
      assertThat(next).isNotEqualTo(leader);
      int readsAtFailover = reads.get();
      await().atMost(Duration.ofSeconds(20)).until(() -> reads.get() > readsAtFailover + 20);
      // Heartbeats reach the new leader, and no worker had to register again.
      double heartbeats = Scrape.rpcCount(cluster.masterWebPort(next), "master", "WorkerHeartbeat");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Scrape.rpcCount(cluster.masterWebPort(next), "master", "WorkerHeartbeat")
                      > heartbeats + 4);
      assertThat(registrations(next)).isEqualTo(before[next]);
      stop.set(true);
      reader.join();
      assertThat(failure.get()).as("reads during the failover").isNull();
      cluster.restart(cluster.master(leader));
    }
  }

  @Test
  void followerKilled_changesKeepCommitting_andItCatchesUpOnRestart() throws Exception {
    int leader = cluster.awaitLeader(Duration.ofSeconds(30));
    int follower = (leader + 1) % 3;
    cluster.master(follower).kill();
    String worker = cluster.workerId(0);
    for (int i = 0; i < 30; i++) {
      client.call(
          "decommission",
          s ->
              s.decommissionWorker(
                  io.strata.core.proto.DecommissionWorkerRequest.newBuilder()
                      .setWorkerId(worker)
                      .build()));
      client.call(
          "recommission",
          s ->
              s.recommissionWorker(
                  io.strata.core.proto.RecommissionWorkerRequest.newBuilder()
                      .setWorkerId(worker)
                      .build()));
    }
    assertThat(view().getWorkersList())
        .filteredOn(w -> w.getId().equals(worker))
        .extracting(WorkerInfo::getState)
        .containsExactly(WorkerState.LIVE);
    cluster.restart(cluster.master(follower));
    long leaderApplied = cluster.status(leader).orElseThrow().getLastAppliedIndex();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                cluster
                    .status(follower)
                    .map(s -> s.getLastAppliedIndex() >= leaderApplied)
                    .orElse(false));
  }

  @Test
  void allMastersRestarted_stateIsIntact() throws Exception {
    ClusterView before = view();
    for (int i = 0; i < 3; i++) {
      cluster.master(i).kill();
    }
    for (int i = 0; i < 3; i++) {
      cluster.master(i).start();
    }
    for (int i = 0; i < 3; i++) {
      cluster.master(i).awaitReady(Duration.ofSeconds(60));
    }
    ClusterView after = view();
    assertThat(after.getMountsList()).isEqualTo(before.getMountsList());
    assertThat(after.getWorkersList())
        .extracting(WorkerInfo::getId)
        .containsExactlyInAnyOrderElementsOf(
            before.getWorkersList().stream().map(WorkerInfo::getId).toList());
    assertThat(after.getMembershipVersion()).isGreaterThanOrEqualTo(before.getMembershipVersion());
  }
}
