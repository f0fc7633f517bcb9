package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.rpc.RpcMetricsInterceptor;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The per-file path: an open brings the status and the first bytes in one round trip, so reading a
 * small cached file costs one data-plane request and nothing else. Counted on the worker.
 */
class SmallFilesTest {
  private static final int FILES = 10_000;
  private static final int SIZE = 2048;

  private static MiniCluster cluster;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().workers(1).start();
    fs = cluster.fileSystem();
  }

  @AfterAll
  static void stop() {
    fs.close();
    cluster.close();
  }

  @Test
  void readingTenThousandSmallFilesTwice_secondPassIsOneRoundTripPerFileAndNoUfsCall()
      throws Exception {
    Path folder = Files.createDirectories(cluster.ufsRoot().resolve("small"));
    Random random = new Random(9);
    byte[][] contents = new byte[FILES][];
    for (int i = 0; i < FILES; i++) {
      contents[i] = new byte[SIZE - (i % 100)];
      random.nextBytes(contents[i]);
      Files.write(folder.resolve("f" + i), contents[i]);
    }
    readAll(contents);
    double ufsCalls = ufsCalls();
    double requests = dataRequests();
    double workerRpcs = workerRpcs();

    readAll(contents);

    assertThat(ufsCalls()).as("UFS calls in the second pass").isEqualTo(ufsCalls);
    assertThat(dataRequests() - requests)
        .as("data-plane round trips in the second pass")
        .isEqualTo(FILES);
    assertThat(workerRpcs()).as("gRPC calls in the second pass").isEqualTo(workerRpcs);
  }

  @Test
  void aFileChangedThroughTheClient_isNeverServedStaleFromItsMetadataCache() throws Exception {
    for (int round = 0; round < 20; round++) {
      byte[] data = new byte[100 + round * 37];
      new Random(round).nextBytes(data);
      try (FileOutStream out = fs.create("/changing/f.bin", new WriteOptions(true, null, 0))) {
        out.write(data);
      }
      assertThat(fs.getStatus("/changing/f.bin").length()).isEqualTo(data.length);
      assertThat(fs.listStatus("/changing"))
          .singleElement()
          .satisfies(f -> assertThat(f.length()).isEqualTo(data.length));
      try (FileInStream in = fs.open("/changing/f.bin")) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
    }
    fs.rename("/changing/f.bin", "/changing/g.bin");
    assertThat(fs.exists("/changing/f.bin")).isFalse();
    assertThat(fs.listStatus("/changing"))
        .extracting(f -> f.path())
        .containsExactly("/changing/g.bin");
    fs.delete("/changing/g.bin", false);
    assertThat(fs.exists("/changing/g.bin")).isFalse();
    assertThat(fs.listStatus("/changing")).isEmpty();
    fs.mkdir("/changing/a", false);
    assertThat(fs.listStatus("/changing/a")).isEmpty();
    fs.mkdir("/changing/a/b/c", true);
    assertThat(fs.listStatus("/changing/a"))
        .extracting(f -> f.path())
        .containsExactly("/changing/a/b");
  }

  private static void readAll(byte[][] contents) throws Exception {
    for (int i = 0; i < FILES; i++) {
      try (FileInStream in = fs.open("/small/f" + i)) {
        assertThat(in.readAllBytes()).isEqualTo(contents[i]);
      }
    }
  }

  private static MeterRegistry worker() {
    return cluster.worker(0).registry();
  }

  /**
   * Status look-ups that missed the metadata cache (each asked the UFS) and page reads from the
   * UFS.
   */
  private static double ufsCalls() {
    return worker().get(WorkerMetrics.METADATA_REQUESTS).tag("result", "miss").counter().count()
        + worker().get(WorkerMetrics.UFS_PAGE_READS).counter().count();
  }

  private static double dataRequests() {
    return worker().get(WorkerMetrics.DATA_REQUESTS).counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private static double workerRpcs() {
    return worker().find(RpcMetricsInterceptor.RPC_SERVER).timers().stream()
        .mapToLong(Timer::count)
        .sum();
  }
}
