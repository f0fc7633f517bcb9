package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import io.strata.testkit.MiniHdfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real HDFS (MiniDFSCluster, in this JVM, on loopback) mounted on a running cluster: the shell
 * mounts, lists, reads, writes, invalidates and loads; FUSE reads; a stopped NameNode fails reads
 * in one line, without a hang.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HdfsMountTest {
  @TempDir static Path dir;
  @TempDir Path mnt;
  private static MiniHdfs hdfs;
  private static ForkedCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    hdfs = new MiniHdfs(dir.resolve("hdfs"));
    cluster = ForkedCluster.builder().masters(1).workers(1).dir(dir.resolve("cluster")).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    hdfs.close();
  }

  private static ShellRunner.Run strata(String... args) {
    return new ShellRunner(cluster::clientConf).run(args);
  }

  private static void put(String path, byte[] bytes) throws Exception {
    try (FSDataOutputStream out = hdfs.client().create(new org.apache.hadoop.fs.Path(path), true)) {
      out.write(bytes);
    }
  }

  private static byte[] get(String path) throws Exception {
    try (FSDataInputStream in = hdfs.client().open(new org.apache.hadoop.fs.Path(path))) {
      return in.readAllBytes();
    }
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  @Order(1)
  void aFolderOfHdfs_isMountedReadWrittenInvalidatedAndLoaded() throws Exception {
    byte[] big = new byte[3 << 20];
    new Random(3).nextBytes(big);
    put("/data/a.txt", text("version one"));
    put("/data/sub/b.bin", big);

    ShellRunner.Run mount = strata("fs", "mount", "/hdfs", hdfs.uri() + "/data");
    assertThat(mount.code()).as(mount.err()).isZero();
    assertThat(strata("fs", "mount").out()).contains("/hdfs", hdfs.uri() + "/data");
    assertThat(strata("fs", "ls", "/hdfs").out()).contains("a.txt", "sub");
    assertThat(strata("fs", "cat", "/hdfs/a.txt").out()).isEqualTo("version one");
    try (FileSystem fs = FileSystem.create(cluster.clientConf());
        FileInStream in = fs.open("/hdfs/sub/b.bin")) {
      assertThat(in.readAllBytes()).isEqualTo(big);
    }

    // Replaced behind Strata's back: seen at once after invalidate.
    put("/data/a.txt", text("version two, longer"));
    ShellRunner.Run invalidate = strata("fs", "invalidate", "-R", "/hdfs");
    assertThat(invalidate.code()).as(invalidate.err()).isZero();
    assertThat(strata("fs", "cat", "/hdfs/a.txt").out()).isEqualTo("version two, longer");

    // Written through Strata: in HDFS, whole, and no temporary file left beside it.
    Path local = dir.resolve("upload.bin");
    Files.write(local, big);
    ShellRunner.Run copy = strata("fs", "copyFromLocal", local.toString(), "/hdfs/written.bin");
    assertThat(copy.code()).as(copy.err()).isZero();
    assertThat(get("/data/written.bin")).isEqualTo(big);
    assertThat(hdfs.client().listStatus(new org.apache.hadoop.fs.Path("/data")))
        .extracting(s -> s.getPath().getName())
        .containsExactlyInAnyOrder("a.txt", "sub", "written.bin");

    // A folder of 1,000 files warmed in advance.
    int files = 1000;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (int i = 0; i < files; i++) {
        String path = String.format("/data/many/%02d/f%04d", i % 10, i);
        puts.add(
            pool.submit(
                () -> {
                  put(path, text(path));
                  return null;
                }));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    ShellRunner.Run load = strata("fs", "distributedLoad", "/hdfs/many", "--json");
    assertThat(load.code()).as(load.err()).isZero();
    assertThat(load.out())
        .contains("\"state\":\"succeeded\"", "\"files\":" + files, "\"files_failed\":0");

    if (FuseHost.mountable()) {
      ForkedProcess fuse =
          cluster.process(
              "fuse",
              ForkedCluster.FUSE_MAIN,
              cluster.clientProperties(),
              List.of(mnt.toString(), "/"));
      cluster.restart(fuse);
      try {
        assertThat(Files.readString(mnt.resolve("hdfs/a.txt"))).isEqualTo("version two, longer");
        assertThat(Files.readAllBytes(mnt.resolve("hdfs/sub/b.bin"))).isEqualTo(big);
        assertThat(Files.readString(mnt.resolve("hdfs/many/07/f0007")))
            .isEqualTo("/data/many/07/f0007");
        Files.writeString(mnt.resolve("hdfs/by-fuse.txt"), "written through FUSE");
        assertThat(get("/data/by-fuse.txt")).isEqualTo(text("written through FUSE"));
      } finally {
        fuse.stop();
      }
    } else {
      System.out.println("HdfsMountTest: FUSE not checked (apt-get install fuse libfuse2)");
    }

    // Refused at mount time, each in one line.
    ShellRunner.Run missing = strata("fs", "mount", "/nothing", hdfs.uri() + "/no/such/folder");
    assertThat(missing.code()).isNotZero();
    assertThat(missing.err().strip()).contains("does not exist").doesNotContain("\n");
    ShellRunner.Run unreachable =
        assertTimeoutPreemptively(
            Duration.ofMinutes(1), () -> strata("fs", "mount", "/away", "hdfs://127.0.0.1:1/data"));
    assertThat(unreachable.code()).isNotZero();
    // The leader's answer, at once: not a master retried until the shell's deadline (30 s).
    assertThat(unreachable.err().strip())
        .startsWith("strata: FAILED_PRECONDITION:")
        .contains("NameNode")
        .doesNotContain("no master answered")
        .doesNotContain("\n");
    ShellRunner.Run badOption =
        strata("fs", "mount", "/bad", hdfs.uri() + "/data", "--option", "nonsense=1");
    assertThat(badOption.err().strip()).contains("nonsense").doesNotContain("\n");
  }

  @Test
  @Order(2)
  void theNameNodeStoppedMidRead_failsInOneLine_withoutAHang() throws Exception {
    byte[] data = new byte[8 << 20];
    new Random(9).nextBytes(data);
    put("/stopped/c.bin", data);
    put("/stopped/d.bin", data);
    ShellRunner.Run mount = strata("fs", "mount", "/stopped", hdfs.uri() + "/stopped");
    assertThat(mount.code()).as(mount.err()).isZero();
    try (FileSystem fs = FileSystem.create(cluster.clientConf());
        FileInStream in = fs.open("/stopped/c.bin")) {
      byte[] first = new byte[1 << 20];
      assertThat(in.read(first)).isPositive();
      hdfs.cluster().shutdownNameNode(0);
      assertTimeoutPreemptively(
          Duration.ofMinutes(2),
          () -> {
            try {
              in.readAllBytes();
              // Pages read ahead before the stop may carry the read to the end: that is no error.
            } catch (java.io.IOException | RuntimeException e) {
              assertThat(e.getMessage()).doesNotContain("\n");
            }
          });
      ShellRunner.Run cat =
          assertTimeoutPreemptively(
              Duration.ofMinutes(2), () -> strata("fs", "cat", "/stopped/d.bin"));
      assertThat(cat.code()).isNotZero();
      assertThat(cat.err().strip()).doesNotContain("\n").doesNotContain("\tat ");
    }
  }
}
