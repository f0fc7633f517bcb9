package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.WorkerProcess;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The read path over each transport — TCP, the worker's domain socket, short-circuit reads of its
 * segment files — against the bytes in the UFS, and short-circuit's silent fall back to the socket.
 */
class DataPathTest {
  private static final int PAGE = 64 * 1024;

  /** Crosses page boundaries, ends in a partial page, and spans more than one lease. */
  private static final int LENGTH = 6 * (1 << 20) + 777;

  enum Transport {
    TCP,
    DOMAIN_SOCKET,
    SHORT_CIRCUIT
  }

  private static MiniCluster cluster;
  private static byte[] data;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        MiniCluster.builder()
            .workers(1)
            .domainSockets()
            .ssd("64MiB")
            .property(WorkerKeys.PAGE_SIZE, "64KiB")
            .property(WorkerKeys.SEGMENT_SIZE, "1MiB")
            // Room for 4 of the file's 97 pages: reads come from memory, from SSD into memory
            // (checksum
            // verified) and, once verified, straight from the segment files (sendfile or a small
            // copy).
            .property(WorkerKeys.MEM_SIZE, "256KiB")
            .start();
    data = new byte[LENGTH];
    new Random(42).nextBytes(data);
    Files.write(cluster.ufsRoot().resolve("data.bin"), data);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static FileSystem client(Transport t) {
    Configuration conf = cluster.clientConf();
    conf.set(UserKeys.DOMAIN_SOCKET, String.valueOf(t != Transport.TCP));
    conf.set(UserKeys.SHORT_CIRCUIT, String.valueOf(t == Transport.SHORT_CIRCUIT));
    if (t == Transport.SHORT_CIRCUIT) {
      // Every byte from the segment files: an open's first bytes would come by socket.
      conf.set(UserKeys.OPEN_FIRST_BYTES, "0");
    }
    return FileSystem.create(conf);
  }

  private static WorkerProcess worker() {
    return cluster.worker(0);
  }

  private static double counter(String name, String... tags) {
    return WorkerCounters.counter(worker(), name, tags);
  }

  private static double socketBytes() {
    return WorkerCounters.socketBytes(worker());
  }

  /**
   * Offsets and lengths at the edges (page boundaries, the last partial page, zero, past the end),
   * then random.
   */
  private static List<long[]> cases() {
    List<long[]> cases =
        new ArrayList<>(
            List.of(
                new long[] {0, 0},
                new long[] {0, 1},
                new long[] {PAGE - 1, 2},
                new long[] {PAGE, PAGE},
                new long[] {PAGE - 100, 3 * PAGE + 200},
                new long[] {4 << 20, 1 << 20},
                new long[] {(4 << 20) - 5, 10},
                new long[] {LENGTH - 777, 777},
                new long[] {LENGTH - 10, 100},
                new long[] {LENGTH - 1, 1},
                new long[] {LENGTH, 10},
                new long[] {LENGTH + 4096, 10},
                new long[] {0, LENGTH},
                new long[] {5, 3 << 20}));
    Random r = new Random(7);
    for (int i = 0; i < 300; i++) {
      int len = r.nextInt(4) == 0 ? r.nextInt(8192) : r.nextInt(400_000);
      cases.add(new long[] {r.nextInt(LENGTH), len});
    }
    return cases;
  }

  private static void assertReadsMatch(FileSystem fs, Transport t) throws IOException {
    try (FileInStream in = fs.open("/data.bin")) {
      for (long[] c : cases()) {
        int pos = (int) c[0];
        byte[] got = new byte[(int) c[1] + 16];
        int n = in.positionedRead(pos, got, 8, (int) c[1]);
        String what = t + " read of " + c[1] + " bytes at " + pos;
        if (pos >= LENGTH) {
          assertThat(n).as(what).isEqualTo(-1);
          continue;
        }
        int want = (int) Math.min(c[1], LENGTH - pos);
        assertThat(n).as(what).isEqualTo(want);
        assertThat(Arrays.copyOfRange(got, 8, 8 + n))
            .as(what)
            .isEqualTo(Arrays.copyOfRange(data, pos, pos + n));
        in.seek(pos);
        byte[] streamed = in.readNBytes(want);
        assertThat(streamed)
            .as("streamed " + what)
            .isEqualTo(Arrays.copyOfRange(data, pos, pos + want));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void randomOffsetsAndLengths_returnExactlyTheUfsBytes(Transport t) throws Exception {
    try (FileSystem fs = client(t)) {
      try (FileInStream in = fs.open("/data.bin")) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
      double tcp = counter(WorkerMetrics.DATA_CONNECTIONS, "transport", "tcp");
      double uds = counter(WorkerMetrics.DATA_CONNECTIONS, "transport", "domain_socket");
      double leases = counter(WorkerMetrics.SHORT_CIRCUIT_LEASES);
      double sent = socketBytes();
      double fromSsd = counter(WorkerMetrics.BYTES_READ, "source", "ssd");

      assertReadsMatch(fs, t);

      switch (t) {
        case TCP -> {
          assertThat(counter(WorkerMetrics.DATA_CONNECTIONS, "transport", "domain_socket"))
              .isEqualTo(uds);
          assertThat(counter(WorkerMetrics.BYTES_READ, "source", "ssd")).isGreaterThan(fromSsd);
        }
        case DOMAIN_SOCKET -> {
          assertThat(counter(WorkerMetrics.DATA_CONNECTIONS, "transport", "tcp")).isEqualTo(tcp);
          assertThat(counter(WorkerMetrics.BYTES_READ, "source", "ssd")).isGreaterThan(fromSsd);
          assertThat(counter(WorkerMetrics.SHORT_CIRCUIT_LEASES)).isEqualTo(leases);
        }
        case SHORT_CIRCUIT -> {
          assertThat(counter(WorkerMetrics.DATA_CONNECTIONS, "transport", "tcp")).isEqualTo(tcp);
          assertThat(socketBytes())
              .as("warm pages are read from the segment files, not sent")
              .isEqualTo(sent);
        }
      }
    }
  }

  @Test
  void aSmallFile_isReadWholeByItsOpen_evenWhereShortCircuitIsAllowed() throws Exception {
    byte[] small = Arrays.copyOf(data, 100 * 1024);
    Files.write(cluster.ufsRoot().resolve("small.bin"), small);
    try (FileSystem warm = client(Transport.TCP);
        FileInStream in = warm.open("/small.bin")) {
      in.readAllBytes();
    }
    Configuration conf = cluster.clientConf();
    conf.set(UserKeys.SHORT_CIRCUIT, "true");
    try (FileSystem fs = FileSystem.create(conf)) {
      double leases = counter(WorkerMetrics.SHORT_CIRCUIT_LEASES);
      try (FileInStream in = fs.open("/small.bin")) {
        byte[] tail = new byte[1000];
        assertThat(in.positionedRead(small.length - 1000, tail, 0, tail.length)).isEqualTo(1000);
        assertThat(tail).isEqualTo(Arrays.copyOfRange(small, small.length - 1000, small.length));
        assertThat(in.readAllBytes()).isEqualTo(small);
      }
      assertThat(counter(WorkerMetrics.SHORT_CIRCUIT_LEASES))
          .as("no lease: one round trip")
          .isEqualTo(leases);
    }
  }

  @Test
  void segmentFilesOutOfSight_shortCircuitFallsBackToTheSocket() throws Exception {
    Path segments = segmentsDir();
    try (FileSystem warm = client(Transport.TCP);
        FileInStream in = warm.open("/data.bin")) {
      in.readAllBytes();
    }
    Path hidden = segments.resolveSibling("segments.hidden");
    // The worker keeps its segment files open; a new reader can no longer find them by name.
    Files.move(segments, hidden);
    try (FileSystem fs = client(Transport.SHORT_CIRCUIT)) {
      double sent = socketBytes();
      assertReadsMatch(fs, Transport.SHORT_CIRCUIT);
      assertThat(socketBytes()).as("the bytes came over the socket").isGreaterThan(sent);
    } finally {
      Files.move(hidden, segments);
    }
  }

  @Test
  void corruptPageInASegmentFile_isNeverReturned() throws Exception {
    Files.write(cluster.ufsRoot().resolve("corrupt.bin"), Arrays.copyOf(data, 3 * PAGE));
    try (FileSystem fs = client(Transport.SHORT_CIRCUIT)) {
      try (FileInStream in = fs.open("/corrupt.bin")) {
        assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOf(data, 3 * PAGE));
      }
      Path segment = newestSegment();
      try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
        long at = f.length() - PAGE / 2;
        f.seek(at);
        int b = f.read();
        f.seek(at);
        f.write(b ^ 0xFF);
      }
      try (FileSystem fresh = client(Transport.SHORT_CIRCUIT);
          FileInStream in = fresh.open("/corrupt.bin")) {
        byte[] got = new byte[3 * PAGE];
        in.readFully(0, got, 0, got.length);
        assertThat(got).isEqualTo(Arrays.copyOf(data, 3 * PAGE));
      }
    }
  }

  private static Path newestSegment() throws IOException {
    try (Stream<Path> files = Files.walk(segmentsDir())) {
      return files
          .filter(Files::isRegularFile)
          .max((a, b) -> Long.compare(segmentId(a), segmentId(b)))
          .orElseThrow();
    }
  }

  private static Path segmentsDir() {
    return cluster.ssdDir(0).resolve("segments");
  }

  private static long segmentId(Path p) {
    return Long.parseLong(p.getFileName().toString().substring("seg-".length()));
  }
}
