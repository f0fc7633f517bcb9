package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.cache.VersionKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 79, step (d): on a read-only mount served by Strata's own loop, an open of a file its
 * co-located worker keeps whole is passed through: the kernel reads the worker's file itself and no
 * READ reaches the FUSE process, with the file's bytes; a cold file of a size to keep whole is read
 * whole by the worker first (fetch then pass through); a file kept in segments, or beyond the
 * mount's fetch limit, is read through the daemon as before.
 */
class PassthroughMountTest {
  private static final int FILES = 12;

  @TempDir static Path dir;
  private static MiniCluster cluster;
  private static FuseProcess fuse;
  private static Path mnt;
  private static byte[][] data = new byte[FILES][];
  private static byte[] evicted;
  private static byte[] changing;

  /** The mount's strata.fuse.passthrough.fetch.max.size here. */
  private static final int FETCH_MAX = 1 << 20;

  @BeforeAll
  static void mount() throws Exception {
    FuseHost.assumeMountable();
    cluster =
        MiniCluster.builder()
            .workers(1)
            .domainSockets()
            .property(WorkerKeys.WHOLE_FILE_SHARE, "50")
            .ssd("256MiB")
            .property(WorkerKeys.MEM_SIZE, "4MiB")
            .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
            .start();
    Path ufs = Files.createDirectories(cluster.ufsRoot().resolve("data"));
    Random r = new Random(7);
    for (int i = 0; i < FILES; i++) {
      data[i] = new byte[(120 << 10) + i * 4099];
      r.nextBytes(data[i]);
      Files.write(ufs.resolve("f" + i), data[i]);
    }
    Files.writeString(ufs.resolve("small.txt"), "kept in a segment\n");
    evicted = new byte[300 << 10];
    r.nextBytes(evicted);
    Files.write(ufs.resolve("evicted.bin"), evicted);
    changing = new byte[200 << 10];
    r.nextBytes(changing);
    Files.write(ufs.resolve("changing.bin"), changing);
    ShellRunner.Run load =
        new ShellRunner(cluster::clientConf).run("fs", "distributedLoad", "/data", "--json");
    assertThat(load.code()).as(load.out() + load.err()).isZero();

    mnt = Files.createDirectories(dir.resolve("mnt"));
    Configuration conf = cluster.clientConf();
    conf.set(UserKeys.DOMAIN_SOCKET, "true");
    conf.set(UserKeys.SHORT_CIRCUIT, "true");
    conf.set(FuseKeys.PASSTHROUGH_FETCH_MAX, String.valueOf(FETCH_MAX));
    fuse =
        new FuseProcess(
            conf, mnt, "/data", false, "engine=strata,ro,attr_timeout=600,entry_timeout=600");
    fuse.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> fuse.notReadyReason().isEmpty());
  }

  @AfterAll
  static void unmount() {
    if (fuse != null) {
      fuse.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void wholeFiles_areReadByTheKernel_withoutAReadOfOurs() throws Exception {
    double readsBefore = kernelRequests("read");
    for (int epoch = 0; epoch < 2; epoch++) {
      for (int i = 0; i < FILES; i++) {
        assertThat(Files.readAllBytes(mnt.resolve("f" + i))).as("f" + i).isEqualTo(data[i]);
      }
    }
    assertThat(kernelRequests("read") - readsBefore)
        .as("READ requests for files passed through")
        .isZero();
    assertThat(kernelRequests("open")).isGreaterThanOrEqualTo(2 * FILES);
    assertThat(metric("strata_fuse_passthrough_opens_total"))
        .as("opens passed through, as /metrics counts them")
        .isGreaterThanOrEqualTo(2 * FILES);
    assertThat(metric("strata_fuse_passthrough_backing_files")).as("none left open").isZero();

    // A file in segments only is read through this process, as before.
    assertThat(Files.readString(mnt.resolve("small.txt"))).isEqualTo("kept in a segment\n");
    assertThat(kernelRequests("read") - readsBefore).isPositive();
  }

  /**
   * The mount finds a whole file by name, without a lease: one the worker removes while it is open
   * stays readable through the open, and the next open, finding none, reads through this process.
   */
  @Test
  void aWholeFileRemovedWhileOpen_isReadToTheEnd_andTheNextOpenGoesThroughUs() throws Exception {
    Path whole = wholeFileOfLength(evicted.length);
    byte[] got = new byte[evicted.length];
    try (FileChannel in = FileChannel.open(mnt.resolve("evicted.bin"))) {
      ByteBuffer first = ByteBuffer.wrap(got, 0, 4096);
      while (first.hasRemaining() && in.read(first) > 0) {}
      Files.delete(whole);
      ByteBuffer rest = ByteBuffer.wrap(got, 4096, got.length - 4096);
      while (rest.hasRemaining() && in.read(rest) > 0) {}
    }
    assertThat(got).isEqualTo(evicted);

    double readsBefore = kernelRequests("read");
    assertThat(Files.readAllBytes(mnt.resolve("evicted.bin"))).isEqualTo(evicted);
    assertThat(kernelRequests("read") - readsBefore)
        .as("READ requests once the whole file is gone")
        .isPositive();
  }

  /**
   * The kernel checks no crc on what it reads itself: a whole file changed on disk behind the
   * worker's back is caught by the worker's own checks (a read through it, or the scrub), which
   * demote it; an open after that is never passed through to the changed file, and reads the file's
   * own bytes.
   */
  @Test
  void aWholeFileCorruptedOnDisk_onceCaught_isNeverPassedThroughAgain() throws Exception {
    byte[] bytes = new byte[(260 << 10) + 3];
    new Random(41).nextBytes(bytes);
    Files.write(cluster.ufsRoot().resolve("data/rotten.bin"), bytes);
    assertThat(Files.readAllBytes(mnt.resolve("rotten.bin"))).isEqualTo(bytes);
    Path whole = wholeFileOfLength(bytes.length);
    int at = (128 << 10) + 17;
    try (FileChannel c = FileChannel.open(whole, java.nio.file.StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(new byte[] {(byte) ~bytes[at]}), at);
    }

    // A read through the worker checks every page's crc: the changed page fails, the file is
    // demoted, and the read comes from the under-storage.
    try (FileSystem fs = FileSystem.create(cluster.clientConf());
        var in = fs.open("/data/rotten.bin")) {
      assertThat(in.readAllBytes()).isEqualTo(bytes);
    }
    assertThat(Files.readAllBytes(mnt.resolve("rotten.bin")))
        .as("through the mount once the worker caught it")
        .isEqualTo(bytes);
  }

  /**
   * A whole file is one version (its name is the version's key): a file rewritten in the UFS while
   * it is open is read to the end as the version opened, never a mix; once the mount is told (here
   * by {@code fs invalidate}), the next open reads the new version whole.
   */
  @Test
  void aFileRewrittenInTheUfsWhileOpen_isReadAsTheVersionOpened_thenAsTheNewOne() throws Exception {
    byte[] newer = changing.clone();
    for (int i = 0; i < newer.length; i += 512) {
      newer[i] ^= 0x5A;
    }
    byte[] got = new byte[changing.length];
    double passedBefore = metric("strata_fuse_passthrough_opens_total");
    try (FileChannel in = FileChannel.open(mnt.resolve("changing.bin"))) {
      ByteBuffer first = ByteBuffer.wrap(got, 0, 4096);
      while (first.hasRemaining() && in.read(first) > 0) {}
      Files.write(cluster.ufsRoot().resolve("data/changing.bin"), newer);
      ByteBuffer rest = ByteBuffer.wrap(got, 4096, got.length - 4096);
      while (rest.hasRemaining() && in.read(rest) > 0) {}
    }
    assertThat(metric("strata_fuse_passthrough_opens_total") - passedBefore)
        .as("the open passed through")
        .isEqualTo(1);
    assertThat(got).as("the version opened, whole").isEqualTo(changing);

    ShellRunner.Run invalidate =
        new ShellRunner(cluster::clientConf).run("fs", "invalidate", "/data/changing.bin");
    assertThat(invalidate.code()).as(invalidate.out() + invalidate.err()).isZero();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              byte[] now = Files.readAllBytes(mnt.resolve("changing.bin"));
              if (!Arrays.equals(now, changing) && !Arrays.equals(now, newer)) {
                throw new IllegalStateException("a read of neither version: a mix");
              }
              return Arrays.equals(now, newer);
            });
  }

  /**
   * The mount may run as root and the worker as an account of its own, which owns the whole-file
   * folder: a symbolic link it puts where a version's whole file would be, to a file of the same
   * length it may not read, is never followed. The version is read as its own bytes: fetched whole
   * by the worker (whose seal renames its file over the link) and passed through, or through the
   * daemon.
   */
  @Test
  void aSymlinkWhereAWholeFileWouldBe_isNotFollowed() throws Exception {
    byte[] mine = new byte[150 << 10];
    new Random(11).nextBytes(mine);
    Files.write(cluster.ufsRoot().resolve("data/planted.bin"), mine);
    byte[] secret = new byte[mine.length];
    new Random(12).nextBytes(secret);
    Path target = Files.write(dir.resolve("root-only.bin"), secret);
    FileInfo status;
    try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
      status = fs.getStatus("/data/planted.bin");
    }
    Path whole = cluster.ssdDir(0).resolve("whole");
    VersionKey key =
        VersionKey.of(
            status.ufsPath(), status.fingerprint(), cluster.clientConf().get(WorkerKeys.PAGE_SIZE));
    Files.createSymbolicLink(whole.resolve(key.name()), target);
    try {
      assertThat(Files.readAllBytes(mnt.resolve("planted.bin"))).isEqualTo(mine);
      Path named = whole.resolve(key.name());
      if (Files.isSymbolicLink(named)) {
        return;
      }
      assertThat(Files.readAllBytes(named))
          .as("the worker's own file under the name")
          .isEqualTo(mine);
    } finally {
      Files.deleteIfExists(whole.resolve(key.name()));
    }
  }

  /**
   * Fetch then pass through: the first open of a file nothing of which is cached waits while the
   * worker reads it whole from the UFS, then passes through; no READ reaches the mount, and the
   * bytes are the file's. Opened again, it passes through without a fetch.
   */
  @Test
  void aColdFileToKeepWhole_isFetchedWhole_thenReadByTheKernel() throws Exception {
    byte[] cold = new byte[(700 << 10) + 123];
    new Random(21).nextBytes(cold);
    Files.write(cluster.ufsRoot().resolve("data/cold.bin"), cold);
    double readsBefore = kernelRequests("read");
    double passedBefore = metric("strata_fuse_passthrough_opens_total");
    double fetchesBefore = workerMetric("strata_worker_whole_fetches_total");

    for (int i = 0; i < 2; i++) {
      assertThat(Files.readAllBytes(mnt.resolve("cold.bin"))).isEqualTo(cold);
    }
    assertThat(kernelRequests("read") - readsBefore).as("READ requests").isZero();
    assertThat(metric("strata_fuse_passthrough_opens_total") - passedBefore).isEqualTo(2);
    assertThat(workerMetric("strata_worker_whole_fetches_total") - fetchesBefore)
        .as("versions the worker read whole")
        .isEqualTo(1);
    assertThat(Files.readAllBytes(wholeFileOfLength(cold.length))).isEqualTo(cold);
  }

  /**
   * A cold file past the mount's fetch limit, or below the worker's least whole size, is not
   * fetched whole: it is read through the mount, as a file that is not cached whole always was.
   */
  @Test
  void coldFilesBeyondTheFetchLimitOrTooSmall_areReadThroughTheMount() throws Exception {
    byte[] large = new byte[FETCH_MAX + 4096];
    new Random(22).nextBytes(large);
    Files.write(cluster.ufsRoot().resolve("data/large.bin"), large);
    byte[] tiny = new byte[10 << 10];
    new Random(23).nextBytes(tiny);
    Files.write(cluster.ufsRoot().resolve("data/tiny.bin"), tiny);
    double fetchesBefore = workerMetric("strata_worker_whole_fetches_total");

    for (String name : List.of("large.bin", "tiny.bin")) {
      double readsBefore = kernelRequests("read");
      double passedBefore = metric("strata_fuse_passthrough_opens_total");
      assertThat(Files.readAllBytes(mnt.resolve(name)))
          .isEqualTo(name.equals("large.bin") ? large : tiny);
      assertThat(kernelRequests("read") - readsBefore).as(name + ": READ requests").isPositive();
      assertThat(metric("strata_fuse_passthrough_opens_total")).isEqualTo(passedBefore);
    }
    assertThat(workerMetric("strata_worker_whole_fetches_total")).isEqualTo(fetchesBefore);
  }

  private static double workerMetric(String name) throws Exception {
    Matcher m =
        Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? ([0-9.eE+]+)$")
            .matcher(Scrape.page(cluster.worker(0).webPort(), "/metrics"));
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private static Path wholeFileOfLength(long length) throws Exception {
    try (Stream<Path> files = Files.list(cluster.ssdDir(0).resolve("whole"))) {
      List<Path> found =
          files
              .filter(
                  f -> {
                    try {
                      return Files.size(f) == length;
                    } catch (java.io.IOException e) {
                      return false;
                    }
                  })
              .toList();
      assertThat(found).as("whole files of " + length + " bytes").hasSize(1);
      return found.get(0);
    }
  }

  private static double metric(String name) throws Exception {
    Matcher m =
        Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? ([0-9.eE+]+)$")
            .matcher(Scrape.page(fuse.webPort(), "/metrics"));
    assertThat(m.find()).as(name + " in /metrics").isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static double kernelRequests(String opcode) throws Exception {
    String metrics = Scrape.page(fuse.webPort(), "/metrics");
    Matcher m =
        Pattern.compile(
                "strata_fuse_kernel_requests_total\\{opcode=\"" + opcode + "\"[^}]*} ([0-9.eE+]+)")
            .matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
