package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileSystem;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** strata conf updateConf on a running cluster of three masters and two workers (separate JVMs). */
class LiveConfigTest {
  private static final String TTL = WorkerKeys.METADATA_TTL.name();
  private static ForkedCluster cluster;
  private static ShellRunner shell;
  private static MasterClient master;

  @BeforeAll
  static void start() throws Exception {
    cluster = ForkedCluster.builder().masters(3).workers(2).start();
    shell = new ShellRunner(cluster::clientConf);
    master = new MasterClient(cluster.clientConf());
  }

  @AfterAll
  static void stop() {
    master.close();
    cluster.close();
  }

  private static ConfigView clusterConf() {
    return master.call("getConfig", s -> s.getConfig(GetConfigRequest.getDefaultInstance()));
  }

  private static void awaitWorkersApplied(long version) {
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              for (int j = 0; j < 2; j++) {
                if (Scrape.value(
                        cluster.workerWebPort(j), "strata_conf_cluster_version{process=\"worker\"}")
                    < version) {
                  return false;
                }
              }
              return true;
            });
  }

  @Test
  void dynamicKey_reachesEveryWorkerAndARunningClient_andChangesBehaviour() throws Exception {
    var clientConf = cluster.clientConf();
    clientConf.set(UserKeys.CONF_SYNC_INTERVAL, "300ms");
    try (FileSystem fs = FileSystem.create(clientConf)) {
      Path file = cluster.ufsRoot().resolve("ttl.txt");
      Files.writeString(file, "one");
      assertThat(fs.getStatus("/ttl.txt").length()).isEqualTo(3);
      Files.writeString(file, "three");
      assertThat(fs.getStatus("/ttl.txt").length())
          .as("cached for the default TTL of a minute")
          .isEqualTo(3);

      ShellRunner.Run update =
          shell.run("conf", "updateConf", TTL + "=200ms", UserKeys.READ_AHEAD_MAX.name() + "=1MiB");
      assertThat(update.code()).as(update.err()).isZero();
      long version = clusterConf().getVersion();
      awaitWorkersApplied(version);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> fs.conf().get(UserKeys.READ_AHEAD_MAX) == 1L << 20);
      await().atMost(Duration.ofSeconds(5)).until(() -> fs.getStatus("/ttl.txt").length() == 5);

      assertThat(shell.run("fsadmin", "report").out())
          .contains(clusterConf().getHash() + " in sync")
          .doesNotContain("STALE");
      assertThat(shell.run("conf", "get", TTL, "--cluster").out()).isEqualTo("200ms\n");
      assertThat(shell.run("conf", "get", TTL, "--source").out())
          .contains("200ms", "cluster override");

      assertThat(shell.run("conf", "unset", TTL, UserKeys.READ_AHEAD_MAX.name()).code()).isZero();
      awaitWorkersApplied(clusterConf().getVersion());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> fs.conf().get(UserKeys.READ_AHEAD_MAX) == 4L << 20);
      assertThat(shell.run("conf", "get", TTL, "--cluster").out())
          .isEqualTo("(no cluster override)\n");
    }
  }

  @Test
  void loadThrottle_changesOnEveryRunningWorker() throws Exception {
    String throttle = "strata_worker_load_throttle_bytes{process=\"worker\"}";
    assertThat(shell.run("conf", "updateConf", "strata.worker.load.bandwidth=8MiB").code())
        .isZero();
    awaitWorkersApplied(clusterConf().getVersion());
    for (int j = 0; j < 2; j++) {
      assertThat(Scrape.value(cluster.workerWebPort(j), throttle)).isEqualTo(8 << 20);
    }
    assertThat(shell.run("conf", "unset", "strata.worker.load.bandwidth").code()).isZero();
    awaitWorkersApplied(clusterConf().getVersion());
    for (int j = 0; j < 2; j++) {
      assertThat(Scrape.value(cluster.workerWebPort(j), throttle)).isZero();
    }
  }

  @Test
  void logLevelsAndAudit_changeWhileRunning() throws Exception {
    assertThat(
            shell
                .run(
                    "fsadmin",
                    "updateConf",
                    "strata.log.levels=io.strata.worker=DEBUG",
                    "strata.audit.log.enabled=true")
                .code())
        .isZero();
    awaitWorkersApplied(clusterConf().getVersion());
    try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
      fs.mkdir("/audited", true);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                (cluster.worker(0).tail() + cluster.worker(1).tail())
                    .contains("op=Mkdir path=/audited"));
    assertThat(Files.readString(cluster.dir().resolve("worker-0.out")))
        .contains("log level of io.strata.worker set to DEBUG");
    assertThat(shell.run("conf", "unset", "strata.log.levels", "strata.audit.log.enabled").code())
        .isZero();
  }

  @Test
  void mistakes_areRefusedWithTheKeyNamed_andChangeNothing() {
    long before = clusterConf().getVersion();
    ShellRunner.Run unknown =
        shell.run("conf", "updateConf", "strata.worker.metadata.cache.tll=5s");
    assertThat(unknown.err())
        .contains(
            "INVALID_ARGUMENT",
            "nothing changed",
            "unknown key 'strata.worker.metadata.cache.tll'",
            "did you mean '" + TTL + "'");
    assertThat(shell.run("conf", "updateConf", TTL + "=soon").err())
        .contains("'soon'", TTL, "expected a duration");
    assertThat(shell.run("conf", "updateConf", "strata.worker.page.size=2MiB").err())
        .contains("strata.worker.page.size cannot change while Strata runs", "restart");
    ShellRunner.Run partly =
        shell.run("conf", "updateConf", TTL + "=5s", "strata.worker.rpc.port=1");
    assertThat(partly.err()).contains("strata.worker.rpc.port cannot change");
    assertThat(shell.run("conf", "updateConf", "novalue").err()).contains("expected KEY=VALUE");
    // Values that are valid alone but would break the running cluster.
    assertThat(shell.run("conf", "updateConf", TTL + "=5m").err())
        .contains("'m' could mean minutes or MiB", "5min");
    assertThat(shell.run("conf", "updateConf", "strata.master.worker.timeout=2s").err())
        .contains("under 3 heartbeats", "every worker would be taken for lost");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        shell
                            .run("conf", "updateConf", "strata.worker.page.store.mem.size=64GiB")
                            .err())
                    .contains(
                        "does not fit in this worker's direct memory", "MaxDirectMemorySize"));
    assertThat(shell.run("conf", "updateConf", "strata.user.metadata.sync.interval=-5s").err())
        .contains("must be -1");
    assertThat(shell.run("conf", "unset", "strata.bogus").err()).contains("unknown key");
    assertThat(clusterConf().getVersion()).isEqualTo(before);
    assertThat(clusterConf().getOverridesMap()).doesNotContainKey(TTL);
  }

  @Test
  void aWorkerWhoseMemoryTierOutgrowsItsDirectMemory_refusesToStart_inOneLine() {
    assertThatThrownBy(
            () ->
                ForkedCluster.builder()
                    .masters(1)
                    .workers(1)
                    .property(WorkerKeys.MEM_SIZE, "1GiB")
                    .start()
                    .close())
        .hasMessageContaining("worker-0 exited with 2")
        .hasMessageContaining("strata worker: INVALID_ARGUMENT: " + WorkerKeys.MEM_SIZE.name())
        .hasMessageContaining("-XX:MaxDirectMemorySize");
  }

  @Test
  void overrides_surviveALeaderFailover_andARestartOfEveryMaster() throws Exception {
    assertThat(
            shell.run("conf", "updateConf", "strata.worker.metadata.cache.negative.ttl=3s").code())
        .isZero();
    int leader = cluster.awaitLeader(Duration.ofSeconds(30));
    cluster.master(leader).kill();
    assertThat(clusterConf().getOverridesMap())
        .containsEntry("strata.worker.metadata.cache.negative.ttl", "3s");
    cluster.restart(cluster.master(leader));
    for (int i = 0; i < 3; i++) {
      cluster.master(i).kill();
    }
    for (int i = 0; i < 3; i++) {
      cluster.master(i).start();
    }
    for (int i = 0; i < 3; i++) {
      cluster.master(i).awaitReady(Duration.ofSeconds(60));
    }
    assertThat(clusterConf().getOverridesMap())
        .containsEntry("strata.worker.metadata.cache.negative.ttl", "3s");
    for (int i = 0; i < 3; i++) {
      assertThat(
              Scrape.value(
                  cluster.masterWebPort(i), "strata_conf_cluster_version{process=\"master\"}"))
          .as("master %d applied it to itself", i)
          .isEqualTo((double) clusterConf().getVersion());
    }
    assertThat(shell.run("conf", "unset", "strata.worker.metadata.cache.negative.ttl").code())
        .isZero();
  }
}
