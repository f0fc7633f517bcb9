package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.core.util.HostMounts;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mount nobody answers: its FUSE process stuck, or killed while one of its threads was blocked in
 * the kernel on the mount (the integrity checker's FUSE kills found it: an entry invalidation
 * waiting for a folder's lock that a caller held while it waited for the process; the process could
 * not finish dying, so its connection never ended and every caller waited for good). Here the
 * process is stopped (SIGSTOP), which the kernel sees the same way. {@code strata fuse list} says
 * so without waiting on it, and a new mount on the folder aborts the old connection (fusectl) and
 * takes its place.
 */
class SilentMountTest {
  @TempDir Path dir;
  private ForkedCluster cluster;
  private ForkedProcess stopped;

  @BeforeEach
  void start() throws Exception {
    FuseHost.assumeMountable();
    cluster = ForkedCluster.builder().masters(1).workers(1).dir(dir.resolve("cluster")).start();
    Files.writeString(cluster.ufsRoot().resolve("hello.txt"), "still here\n");
  }

  @AfterEach
  void stop() throws Exception {
    if (stopped != null && stopped.isAlive()) {
      new ProcessBuilder("kill", "-KILL", String.valueOf(stopped.pid())).start().waitFor();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aMountNobodyAnswers_isListedAsSuch_andANewMountTakesItsPlace() throws Exception {
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    stopped = cluster.mountFuse("fuse-first", mnt, "/", Map.of(), "");
    assertThat(mnt.resolve("hello.txt")).hasContent("still here");

    new ProcessBuilder("kill", "-STOP", String.valueOf(stopped.pid())).start().waitFor();
    HostMounts.Mount silent = HostMounts.at(mnt).orElseThrow();
    assertThat(silent.state(Duration.ofSeconds(1))).isEqualTo(HostMounts.State.SILENT);
    ShellRunner.Run list = new ShellRunner(cluster::clientConf).run("fuse", "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains(mnt.toString(), "not answering");

    ForkedProcess second = cluster.mountFuse("fuse-second", mnt, "/", Map.of(), "");
    try {
      assertThat(mnt.resolve("hello.txt")).hasContent("still here");
      assertThat(second.outputLines(l -> l.contains("did not answer"), 5))
          .as("the new mount's log says what it did")
          .isNotEmpty();
      // The old process, its connection aborted, ends once it runs again.
      new ProcessBuilder("kill", "-CONT", String.valueOf(stopped.pid())).start().waitFor();
      await().atMost(Duration.ofSeconds(30)).until(() -> !stopped.isAlive());
    } finally {
      second.stop();
    }
  }
}
