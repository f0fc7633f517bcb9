package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileSystem;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** distributedLoad through SIGKILLed masters and workers, and an operator's stop. */
class LoadFaultTest {
  private static final int FILES = 1000;
  private static final int SIZE = 16 * 1024;

  @TempDir Path dir;
  private ForkedCluster cluster;
  private MasterClient master;
  private ShellRunner shell;
  private final List<String> files = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    cluster =
        ForkedCluster.builder()
            .masters(3)
            .workers(3)
            .dir(dir)
            .property(WorkerKeys.PAGE_SIZE, "16KiB")
            .property(MasterKeys.WORKER_TIMEOUT, "2s")
            .start();
    master = new MasterClient(cluster.clientConf());
    shell = new ShellRunner(cluster::clientConf);
    Random r = new Random(9);
    byte[] data = new byte[SIZE];
    for (int i = 0; i < FILES; i++) {
      Path f = cluster.ufsRoot().resolve("set/d" + (i % 10) + "/f" + i);
      Files.createDirectories(f.getParent());
      r.nextBytes(data);
      Files.write(f, data);
      files.add("/set/d" + (i % 10) + "/f" + i);
    }
  }

  @AfterEach
  void stop() {
    if (master != null) {
      master.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Submits a load of /set slowed to about {@code rate} so that faults land mid-job; returns its
   * id.
   */
  private long submitSlowLoad(String rate) {
    ShellRunner.Run run =
        shell.run(
            "fs", "distributedLoad", "/set", "--submit", "--batch-size", "20", "--bandwidth", rate);
    assertThat(run.code()).as(run.err()).isZero();
    Matcher m = Pattern.compile("submitted load job (\\d+)").matcher(run.out());
    assertThat(m.find()).as(run.out()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private LoadJob job(long id) {
    return master.call("getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setId(id).build()));
  }

  private void assertEveryFileCached() {
    var conf = cluster.clientConf();
    conf.set(UserKeys.CLUSTER_VIEW_REFRESH, "100ms");
    try (FileSystem fs = FileSystem.create(conf)) {
      for (String f : files) {
        assertThat(fs.getStatusWithCacheInfo(f).cachedBytes()).as(f).isEqualTo(SIZE);
      }
    }
  }

  @Test
  void leaderKilledMidJob_theNewLeaderFinishesIt_nothingMissed() throws Exception {
    long id = submitSlowLoad("3MiB");
    await().atMost(Duration.ofSeconds(30)).until(() -> job(id).getCounters().getFiles() >= 100);
    cluster.master(cluster.awaitLeader(Duration.ofSeconds(10))).kill();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> job(id).getState() != LoadState.LOAD_RUNNING);
    LoadJob done = job(id);
    assertThat(done.getState()).as(done.getMessage()).isEqualTo(LoadState.LOAD_SUCCEEDED);
    assertThat(done.getCounters().getFiles()).isEqualTo(FILES);
    assertThat(done.getCounters().getFilesFailed()).isZero();
    assertEveryFileCached();
  }

  @Test
  void workerKilledMidJob_itsFilesReachTheirNewOwners_andTheJobCompletes() throws Exception {
    long id = submitSlowLoad("3MiB");
    await().atMost(Duration.ofSeconds(30)).until(() -> job(id).getCounters().getFiles() >= 200);
    cluster.worker(1).kill();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> job(id).getState() != LoadState.LOAD_RUNNING);
    LoadJob done = job(id);
    assertThat(done.getState()).as(done.getMessage()).isEqualTo(LoadState.LOAD_SUCCEEDED);
    assertThat(done.getCounters().getFiles()).isEqualTo(FILES);
    assertEveryFileCached();
  }

  @Test
  void stoppedJob_reportsHowFarItGot_andStaysStoppedAcrossALeaderChange() throws Exception {
    long id = submitSlowLoad("1MiB");
    await().atMost(Duration.ofSeconds(30)).until(() -> job(id).getCounters().getFiles() >= 20);
    ShellRunner.Run stop = shell.run("fs", "distributedLoad", "/set", "--stop");
    assertThat(stop.out())
        .contains("load job " + id + " of /set: stopped", "stopped by an operator");
    long filesAtStop = job(id).getCounters().getFiles();
    assertThat(filesAtStop).isBetween(20L, (long) FILES - 1);
    cluster.master(cluster.awaitLeader(Duration.ofSeconds(10))).kill();
    cluster.awaitLeader(Duration.ofSeconds(30));
    // Elected is not yet serving (it first applies its term's entry): wait until it answers, so
    // that the check below measures the job, not the election (on a loaded host, seconds).
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> job(id) != null);
    // The new leader resumes running jobs at once: this one must stay as it was, throughout.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              LoadJob j = job(id);
              return j.getState() == LoadState.LOAD_STOPPED
                  && j.getCounters().getFiles() == filesAtStop;
            });
    assertThat(shell.run("job", "status", String.valueOf(id)).out()).contains("stopped");
  }
}
