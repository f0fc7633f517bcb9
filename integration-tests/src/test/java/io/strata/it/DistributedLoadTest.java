package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** distributedLoad end to end through the shell, on three workers in one JVM. */
class DistributedLoadTest {
  private static MiniCluster cluster;
  private static FileSystem fs;
  private static ShellRunner shell;
  private static final List<String> FILES = new ArrayList<>();
  private static long totalBytes;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        MiniCluster.builder()
            .workers(3)
            .property(WorkerKeys.PAGE_SIZE, "16KiB")
            .property(WorkerKeys.MEM_SIZE, "256MiB")
            .start();
    fs = cluster.fileSystem();
    shell = new ShellRunner(cluster::clientConf);
    Random r = new Random(3);
    for (int a = 0; a < 10; a++) {
      for (int b = 0; b < 10; b++) {
        Path dir = Files.createDirectories(cluster.ufsRoot().resolve("set/d" + a + "/e" + b));
        for (int f = 0; f < 11; f++) {
          byte[] data = new byte[r.nextInt(40_000)];
          r.nextBytes(data);
          Files.write(dir.resolve("f" + f), data);
          FILES.add("/set/d" + a + "/e" + b + "/f" + f);
          totalBytes += data.length;
        }
      }
    }
    Files.createDirectories(cluster.ufsRoot().resolve("empty"));
    Files.write(cluster.ufsRoot().resolve("plain.txt"), new byte[10]);
  }

  @AfterAll
  static void stop() {
    fs.close();
    cluster.close();
  }

  private static double ufsBytes() {
    double sum = 0;
    for (WorkerProcess w : cluster.workers()) {
      sum +=
          w.registry().get(WorkerMetrics.UFS_BYTES_READ).counter().count()
              + w.registry().get(WorkerMetrics.LOAD_BYTES).counter().count();
    }
    return sum;
  }

  @Test
  void thousandFilesInNestedFolders_areAllCachedOnce_andTheReportMatches() throws Exception {
    ShellRunner.Run run =
        shell.run("fs", "distributedLoad", "/set", "--json", "--batch-size", "50");
    assertThat(run.code()).as(run.err()).isZero();
    String report = run.out().strip();
    assertThat(report)
        .contains(
            "\"state\":\"succeeded\"",
            "\"walk\":\"folders\"",
            "\"files\":" + FILES.size(),
            "\"files_failed\":0",
            "\"bytes\":" + totalBytes,
            "\"bytes_loaded\":" + totalBytes);
    for (String f : FILES) {
      FileInfo info = fs.getStatusWithCacheInfo(f);
      assertThat(info.cachedBytes()).as(f).isEqualTo(info.length());
    }
    double before = ufsBytes();
    ShellRunner.Run again = shell.run("fs", "distributedLoad", "/set", "--json");
    assertThat(again.out()).contains("\"state\":\"succeeded\"", "\"bytes_loaded\":0");
    assertThat(ufsBytes()).as("a second load reads nothing from the UFS").isEqualTo(before);

    ShellRunner.Run list = shell.run("job", "list");
    assertThat(list.out()).contains("succeeded", "/set");
  }

  /** Output that is not a terminal (a pipe, as here) gets plain progress lines, no bar. */
  @Test
  void followedWithoutATerminal_printsPlainProgressLines() throws Exception {
    Random r = new Random(9);
    byte[] data = new byte[200_000];
    for (int i = 0; i < 40; i++) {
      r.nextBytes(data);
      Path f = cluster.ufsRoot().resolve("watched/f" + i);
      Files.createDirectories(f.getParent());
      Files.write(f, data);
    }
    // 8 MB at 1 MiB/s: about 8 s, so at least one line every 5 s.
    ShellRunner.Run run = shell.run("fs", "distributedLoad", "/watched", "--bandwidth", "1MiB");
    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .containsPattern(
            "(?m)^load \\d+: \\S+ of \\S+ \\(\\d+%\\), \\d+ of \\d+\\+? files, 0 failed, ")
        .doesNotContain("\r", "\u001b");
  }

  @Test
  void replicationAndVerify_loadEveryFileOntoTwoWorkers() throws Exception {
    Random r = new Random(5);
    long bytes = 0;
    for (int i = 0; i < 30; i++) {
      byte[] data = new byte[1 + r.nextInt(100_000)];
      r.nextBytes(data);
      Path f = cluster.ufsRoot().resolve("replicated/f" + i);
      Files.createDirectories(f.getParent());
      Files.write(f, data);
      bytes += data.length;
    }
    double loadedBefore = 0;
    for (WorkerProcess w : cluster.workers()) {
      loadedBefore += w.registry().get(WorkerMetrics.LOAD_BYTES).counter().count();
    }
    ShellRunner.Run run =
        shell.run(
            "fs", "distributedLoad", "/replicated", "--replication", "2", "--verify", "--json");
    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("\"files\":30", "\"bytes\":" + 2 * bytes, "\"bytes_loaded\":" + 2 * bytes);
    double loaded = -loadedBefore;
    for (WorkerProcess w : cluster.workers()) {
      loaded += w.registry().get(WorkerMetrics.LOAD_BYTES).counter().count();
    }
    assertThat(loaded).as("two copies of every byte went into caches").isEqualTo(2.0 * bytes);
  }

  @Test
  void badInputs_getClearMessages() {
    ShellRunner.Run missing = shell.run("fs", "distributedLoad", "/nope");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err())
        .startsWith("strata: NOT_FOUND")
        .contains("/nope")
        .doesNotContain("Exception");
    ShellRunner.Run file = shell.run("fs", "distributedLoad", "/plain.txt");
    assertThat(file.err()).contains("/plain.txt is a file");
    ShellRunner.Run empty = shell.run("fs", "distributedLoad", "/empty");
    assertThat(empty.code()).isZero();
    assertThat(empty.out()).contains("succeeded", "no files under /empty");
    ShellRunner.Run noJob = shell.run("fs", "distributedLoad", "/never", "--progress");
    assertThat(noJob.err()).contains("no load job for /never");
  }
}
