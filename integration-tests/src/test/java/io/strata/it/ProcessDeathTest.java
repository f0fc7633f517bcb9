package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.WorkerState;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Processes killed with SIGKILL under load: a worker while 8 threads read, a client mid-write. */
class ProcessDeathTest {
  private static final int FILES = 24;
  private static final int SIZE = 700_000;

  @TempDir Path dir;
  private ForkedCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] content(int i) {
    byte[] b = new byte[SIZE];
    new Random(i).nextBytes(b);
    return b;
  }

  /**
   * Reads random ranges of random files, checking every byte, until told to stop; errors are
   * collected.
   */
  private static void readLoop(
      FileSystem fs, AtomicBoolean stop, AtomicLong reads, Queue<Throwable> errors, int seed) {
    Random r = new Random(seed);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!stop.get() && System.nanoTime() < deadline) {
      int i = r.nextInt(FILES);
      try (FileInStream in = fs.open("/data/f" + i)) {
        byte[] want = content(i);
        if (r.nextBoolean()) {
          assertThat(in.readAllBytes()).isEqualTo(want);
        } else {
          int pos = r.nextInt(SIZE);
          byte[] got = new byte[Math.min(SIZE - pos, 1 + r.nextInt(200_000))];
          in.readFully(pos, got, 0, got.length);
          assertThat(got).isEqualTo(Arrays.copyOfRange(want, pos, pos + got.length));
        }
        reads.incrementAndGet();
      } catch (Throwable t) {
        t.printStackTrace();
        errors.add(t);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "short-circuit"})
  void workerKilled_whileEightThreadsRead_noReadFails(String transport) throws Exception {
    var b =
        ForkedCluster.builder()
            .masters(1)
            .workers(3)
            .dir(dir)
            .property(WorkerKeys.PAGE_SIZE, "64KiB")
            .property(MasterKeys.WORKER_TIMEOUT, "2s");
    if (transport.equals("short-circuit")) {
      b.domainSockets().ssd("64MiB").property(WorkerKeys.SEGMENT_SIZE, "1MiB");
    }
    cluster = b.start();
    Files.createDirectories(cluster.ufsRoot().resolve("data"));
    for (int i = 0; i < FILES; i++) {
      Files.write(cluster.ufsRoot().resolve("data/f" + i), content(i));
    }
    var conf = cluster.clientConf();
    conf.set(UserKeys.CLUSTER_VIEW_REFRESH, "200ms");
    conf.set(UserKeys.READ_TIMEOUT, "3s");
    conf.set(UserKeys.READ_AHEAD_MAX, "256KiB");
    // Most of each file comes by the reader's stream, not with the open: both must survive the
    // kill.
    conf.set(UserKeys.OPEN_FIRST_BYTES, "64KiB");
    try (FileSystem fs = FileSystem.create(conf);
        MasterClient master = new MasterClient(cluster.clientConf())) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        readers.add(pool.submit(() -> readLoop(fs, stop, reads, errors, seed)));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> reads.get() >= 40);
      String victim = cluster.workerId(1);
      cluster.worker(1).kill();
      long atKill = reads.get();
      await().atMost(Duration.ofSeconds(30)).until(() -> state(master, victim) == WorkerState.LOST);
      await().atMost(Duration.ofSeconds(30)).until(() -> reads.get() >= atKill + 100);
      stop.set(true);
      for (Future<?> f : readers) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertThat(errors).as("read errors").isEmpty();
    }
  }

  private static WorkerState state(MasterClient master, String workerId) {
    ClusterView v =
        master.call("view", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
    return v.getWorkersList().stream()
        .filter(w -> w.getId().equals(workerId))
        .findFirst()
        .orElseThrow()
        .getState();
  }

  /**
   * The master is out of the read path: with it killed, a client whose cluster view has gone stale
   * reads on from the workers of that view, and when one of them dies too the ring failover takes
   * the next. The client's master calls retry for ten minutes here: one that waited for the master
   * would hold this test past its time limit.
   */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void masterKilled_readsGoOnFromTheWorkersOfTheLastView_pastAWorkerKilledToo() throws Exception {
    cluster = ForkedCluster.builder().masters(1).workers(2).dir(dir).start();
    Files.createDirectories(cluster.ufsRoot().resolve("data"));
    for (int i = 0; i < 8; i++) {
      Files.write(cluster.ufsRoot().resolve("data/f" + i), content(i));
    }
    var conf = cluster.clientConf();
    conf.set(UserKeys.CLUSTER_VIEW_REFRESH, "1ms");
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "10min");
    try (FileSystem fs = FileSystem.create(conf)) {
      readEach(fs, 8);
      cluster.master(0).kill();
      readEach(fs, 8);
      cluster.worker(1).kill();
      for (int round = 0; round < 3; round++) {
        readEach(fs, 8);
      }
    }
  }

  /** Looks up and reads whole each of the first {@code files} files, checking every byte. */
  private static void readEach(FileSystem fs, int files) throws java.io.IOException {
    for (int i = 0; i < files; i++) {
      assertThat(fs.getStatus("/data/f" + i).length()).isEqualTo(SIZE);
      try (FileInStream in = fs.open("/data/f" + i)) {
        assertThat(in.readAllBytes()).isEqualTo(content(i));
      }
    }
  }

  @Test
  void writerKilledMidStream_leavesNoFileUnderTheFinalName_andNoTemporary() throws Exception {
    cluster = ForkedCluster.builder().masters(1).workers(1).dir(dir).start();
    Path folder = Files.createDirectories(cluster.ufsRoot().resolve("out"));
    ForkedProcess writer =
        cluster.process(
            "writer",
            SlowWriter.class.getName(),
            Map.of(
                CommonKeys.MASTER_RPC_ADDRESSES.name(),
                String.join(",", cluster.clientConf().get(CommonKeys.MASTER_RPC_ADDRESSES)),
                "writer.path",
                "/out/big.bin"));
    writer.start();
    writer.awaitReady(Duration.ofSeconds(60));
    await().atMost(Duration.ofSeconds(10)).until(() -> bytesIn(folder) >= 8 << 20);
    assertThat(Files.exists(folder.resolve("big.bin"))).as("not published before close").isFalse();
    writer.kill();
    await().atMost(Duration.ofSeconds(30)).until(() -> entries(folder).isEmpty());
    try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
      assertThat(fs.exists("/out/big.bin")).isFalse();
    }
  }

  private static List<Path> entries(Path folder) throws java.io.IOException {
    try (Stream<Path> s = Files.list(folder)) {
      return s.toList();
    }
  }

  private static long bytesIn(Path folder) throws java.io.IOException {
    long total = 0;
    for (Path p : entries(folder)) {
      total += Files.size(p);
    }
    return total;
  }
}
