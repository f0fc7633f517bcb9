package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A cache folder on a disk smaller than its quota (a 32 MiB tmpfs under a 1 GiB quota): the tier
 * counts only what the disk holds, and a load larger than that reports the files that did not fit,
 * with the reason, and fails, instead of evicting what it loaded and claiming success.
 */
class FullCacheDiskTest {
  private static Path disk;
  private static MiniCluster cluster;
  private static ShellRunner shell;

  @BeforeAll
  static void start() throws Exception {
    assumeThat(System.getProperty("user.name"))
        .as("mounting a small tmpfs needs root")
        .isEqualTo("root");
    disk = Files.createTempDirectory("strata-small-disk");
    run("mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", disk.toString());
    cluster =
        MiniCluster.builder()
            .workers(1)
            .property(WorkerKeys.MEM_SIZE, "8MiB")
            .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
            .property(WorkerKeys.PAGE_STORE_DIRS, disk + ":1GiB")
            .start();
    shell = new ShellRunner(cluster::clientConf);
    Random r = new Random(11);
    byte[] data = new byte[4 << 20];
    for (int i = 0; i < 20; i++) {
      r.nextBytes(data);
      Path f = cluster.ufsRoot().resolve("big/f" + i);
      Files.createDirectories(f.getParent());
      Files.write(f, data);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (disk != null) {
      run("umount", disk.toString());
    }
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
  }

  @Test
  void aLoadLargerThanTheDisk_failsWithTheFilesThatDidNotFit_andCapacityIsTheDisks() {
    ShellRunner.Run load = shell.run("fs", "distributedLoad", "/big");
    assertThat(load.code()).as(load.out() + load.err()).isNotZero();
    assertThat(load.out())
        .containsPattern("files: +20 done, 1\\d failed")
        .containsPattern("not cached: +[0-9.]+MiB in 1\\d files")
        .contains("no room for /big/f", "full of what was cached since this load began");

    // Asked to, a load that only lacked room succeeds, and still says what it could not cache.
    ShellRunner.Run partial = shell.run("fs", "distributedLoad", "/big", "--allow-partial");
    assertThat(partial.code()).as(partial.out() + partial.err()).isZero();
    assertThat(partial.out()).contains("succeeded").containsPattern("not cached: +[0-9.]+MiB");

    ShellRunner.Run capacity = shell.run("fsadmin", "report", "capacity");
    assertThat(capacity.out()).containsPattern("SSD +" + disk + " +2[0-9]\\.\\dMiB");
  }
}
