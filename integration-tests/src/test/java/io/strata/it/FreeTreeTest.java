package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fs free} of a folder: one request per worker, every page below it, nested mounts too; a
 * mount is listed in its parent folder.
 */
class FreeTreeTest {
  private static final int PAGE = 64 << 10;

  @TempDir Path nestedUfs;
  private MiniCluster cluster;
  private FileSystem fs;

  @BeforeEach
  void start() throws Exception {
    cluster = MiniCluster.builder().workers(2).property(WorkerKeys.PAGE_SIZE, "64KiB").start();
    fs = cluster.fileSystem();
  }

  @AfterEach
  void stop() {
    fs.close();
    cluster.close();
  }

  @Test
  void aFolderFreed_dropsEveryPageBelowIt_onEveryWorker_andNothingElse() throws Exception {
    Random r = new Random(5);
    long treeBytes = 0;
    for (int i = 0; i < 24; i++) {
      treeBytes += put(cluster.ufsRoot().resolve("tree/sub" + (i % 3) + "/f" + i), r);
    }
    for (int i = 0; i < 4; i++) {
      treeBytes += put(nestedUfs.resolve("n" + i), r);
    }
    long otherBytes = 0;
    for (int i = 0; i < 4; i++) {
      otherBytes += put(cluster.ufsRoot().resolve("other/g" + i), r);
    }
    try (MasterClient master = new MasterClient(cluster.clientConf())) {
      MountPoint nested =
          MountPoint.newBuilder()
              .setPath("/tree/nested")
              .setUfsUri(nestedUfs.toUri().toString())
              .build();
      master.call("mount", s -> s.mount(MountRequest.newBuilder().setMount(nested).build()));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> fs.listStatus("/tree/nested").size() == 4);
    assertThat(fs.listStatus("/tree"))
        .as("a mount is listed in its parent folder")
        .extracting(e -> e.name() + (e.directory() ? "/" : ""))
        .containsExactly("nested/", "sub0/", "sub1/", "sub2/");

    ShellRunner.Run load =
        new ShellRunner(cluster::clientConf).run("fs", "distributedLoad", "/tree", "--json");
    assertThat(load.code()).as(load.err()).isZero();
    assertThat(load.out())
        .as("a load walks into the mount below")
        .contains("\"files\":28", "\"files_failed\":0", "\"bytes_loaded\":" + treeBytes);
    readFolder("/other");
    double before = ufsPageReads();
    readEverything();
    assertThat(ufsPageReads()).as("all cached").isEqualTo(before);

    assertThat(fs.free("/tree")).isEqualTo(treeBytes);

    before = ufsPageReads();
    readFolder("/other");
    assertThat(ufsPageReads()).as("what lies beside the folder stays cached").isEqualTo(before);
    long treePages = readFolder("/tree");
    assertThat(ufsPageReads() - before)
        .as("every page below the folder, the nested mount's too, read again from the UFS")
        .isEqualTo((double) treePages);
    assertThat(fs.free("/tree/sub0/f0")).as("a file alone, as before").isPositive();
    assertThat(otherBytes).isPositive();
  }

  private static long put(Path file, Random r) throws Exception {
    Files.createDirectories(file.getParent());
    byte[] b = new byte[PAGE * (1 + r.nextInt(3)) + r.nextInt(PAGE)];
    r.nextBytes(b);
    Files.write(file, b);
    return b.length;
  }

  private void readEverything() throws Exception {
    readFolder("/tree");
    readFolder("/other");
  }

  /** Reads every file below {@code folder} whole; the pages read (a last partial page too). */
  private long readFolder(String folder) throws Exception {
    long pages = 0;
    for (var entry : fs.listStatus(folder)) {
      if (entry.directory()) {
        pages += readFolder(entry.path());
        continue;
      }
      try (FileInStream in = fs.open(entry.path())) {
        long length = in.readAllBytes().length;
        pages += (length + PAGE - 1) / PAGE;
      }
    }
    return pages;
  }

  private double ufsPageReads() {
    double sum = 0;
    for (WorkerProcess w : cluster.workers()) {
      sum += w.registry().get(WorkerMetrics.UFS_PAGE_READS).counter().count();
    }
    return sum;
  }
}
