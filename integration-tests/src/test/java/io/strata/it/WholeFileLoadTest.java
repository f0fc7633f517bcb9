package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 79, step (c), end to end: {@code distributedLoad} keeps a file of the whole-file size as
 * one plain file in its worker's SSD folder (the backing file FUSE passthrough will hand the
 * kernel), and every reader gets its bytes from there: over TCP, and short-circuit from the file
 * itself. A byte changed on disk behind the worker's back is never served: the page fails its crc,
 * the file is demoted, and the read comes from the under-storage.
 */
class WholeFileLoadTest {
  private static final int PAGE = 64 << 10;
  private static MiniCluster cluster;
  private static byte[] big;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        MiniCluster.builder()
            .workers(1)
            .domainSockets()
            .property(WorkerKeys.WHOLE_FILE_SHARE, "50")
            .ssd("64MiB")
            .property(WorkerKeys.PAGE_SIZE, "64KiB")
            .property(WorkerKeys.SEGMENT_SIZE, "1MiB")
            // Four pages: reads come from the SSD folder, not from memory.
            .property(WorkerKeys.MEM_SIZE, "256KiB")
            .start();
    big = new byte[3 * (1 << 20) + 17];
    new Random(79).nextBytes(big);
    Path ds = Files.createDirectories(cluster.ufsRoot().resolve("ds"));
    Files.write(ds.resolve("big.bin"), big);
    Files.write(ds.resolve("small.bin"), new byte[8 << 10]);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aLoadedFile_isOneFileOnSsd_servedOverEveryPath_andNeverServedCorrupted() throws Exception {
    ShellRunner.Run load =
        new ShellRunner(cluster::clientConf).run("fs", "distributedLoad", "/ds", "--json");
    assertThat(load.code()).as(load.out() + load.err()).isZero();
    assertThat(load.out()).contains("\"files\":2", "\"files_failed\":0");

    List<Path> whole = wholeFiles();
    assertThat(whole).as("the big file whole; the small one in segments").hasSize(1);
    assertThat(Files.readAllBytes(whole.get(0))).isEqualTo(big);

    try (FileSystem tcp = FileSystem.create(cluster.clientConf())) {
      assertThat(readAll(tcp)).isEqualTo(big);
    }
    Configuration local = cluster.clientConf();
    local.set(UserKeys.DOMAIN_SOCKET, "true");
    local.set(UserKeys.SHORT_CIRCUIT, "true");
    local.set(UserKeys.OPEN_FIRST_BYTES, "0");
    double leases = counter(WorkerMetrics.SHORT_CIRCUIT_LEASES);
    try (FileSystem shortCircuit = FileSystem.create(local)) {
      assertThat(readAll(shortCircuit)).isEqualTo(big);
    }
    assertThat(counter(WorkerMetrics.SHORT_CIRCUIT_LEASES))
        .as("pages leased from the whole file")
        .isGreaterThan(leases);

    // A byte of page 40 changed on disk: that page fails its check, and the file is demoted.
    int at = 40 * PAGE + 5;
    overwrite(whole.get(0), at, (byte) ~big[at]);
    try (FileSystem tcp = FileSystem.create(cluster.clientConf())) {
      assertThat(readAll(tcp)).isEqualTo(big);
    }
    // Demoted: no longer held (the file itself stays while a short-circuit lease holds it, and is
    // replaced by a new one), so the next load reads the under-storage into a new whole file.
    ShellRunner.Run again =
        new ShellRunner(cluster::clientConf).run("fs", "distributedLoad", "/ds", "--json");
    assertThat(again.code()).as(again.out() + again.err()).isZero();
    assertThat(again.out()).contains("\"files_failed\":0");
    assertThat(wholeFiles()).hasSize(1);
    assertThat(Files.readAllBytes(wholeFiles().get(0))).isEqualTo(big);
  }

  private static byte[] readAll(FileSystem fs) throws IOException {
    try (FileInStream in = fs.open("/ds/big.bin")) {
      return in.readAllBytes();
    }
  }

  private static List<Path> wholeFiles() throws IOException {
    try (Stream<Path> files = Files.list(cluster.ssdDir(0).resolve("whole"))) {
      return files.toList();
    }
  }

  private static void overwrite(Path file, long at, byte b) throws IOException {
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(new byte[] {b}), at);
    }
  }

  private static double counter(String name) {
    return WorkerCounters.counter(cluster.worker(0), name);
  }
}
