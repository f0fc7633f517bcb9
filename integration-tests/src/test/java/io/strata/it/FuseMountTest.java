package io.strata.it;

import static io.strata.it.Commands.ok;
import static io.strata.it.Commands.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.fuse.FuseProcess;
import io.strata.it.Commands.Run;
import io.strata.testkit.MiniCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real FUSE mount of a running cluster, driven by the tools people use on it: coreutils, Python
 * and fio. Skips where the machine cannot mount FUSE (CI installs fuse and fio).
 */
class FuseMountTest {
  private static final int BIG = 24 << 20;

  private static MiniCluster cluster;
  private static byte[] big;

  @TempDir Path dir;
  private FuseProcess fuse;
  private Path mnt;

  @BeforeAll
  static void startCluster() throws Exception {
    FuseHost.assumeMountable();
    cluster = MiniCluster.builder().property(WorkerKeys.METADATA_TTL, "3s").start();
    big = new byte[BIG];
    new Random(3).nextBytes(big);
    Path data = cluster.ufsRoot().resolve("data");
    Files.createDirectories(data.resolve("sub/deeper"));
    Files.write(data.resolve("big.bin"), big);
    Files.writeString(data.resolve("hello.txt"), "hello, strata\n");
    Files.writeString(data.resolve("sub/a.txt"), "a\n");
    Files.writeString(data.resolve("sub/deeper/b.txt"), "bb\n");
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private void mount(boolean readOnly) throws Exception {
    mount(readOnly, cluster.clientConf());
  }

  private void mount(boolean readOnly, Configuration conf) throws Exception {
    mnt = Files.createDirectories(dir.resolve("mnt"));
    fuse = new FuseProcess(conf, mnt, "/data", readOnly);
    fuse.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> fuse.notReadyReason().isEmpty());
  }

  @AfterEach
  void unmount() {
    if (fuse != null) {
      fuse.close();
    }
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  @Test
  void coreutils_behaveAsOnALocalDisk() throws Exception {
    mount(false);
    assertThat(ok("cat", mnt + "/hello.txt").out()).isEqualTo("hello, strata\n");
    assertThat(ok("ls", "-lR", mnt.toString()).out())
        .contains("big.bin", "hello.txt", "sub:", "deeper", "b.txt");
    // (small/ belongs to the concurrent-readers test, which may run first.)
    assertThat(
            ok("find", mnt.toString(), "-type", "f", "-not", "-path", "*/small/*")
                .out()
                .lines()
                .sorted()
                .toList())
        .containsExactly(
            mnt + "/big.bin", mnt + "/hello.txt", mnt + "/sub/a.txt", mnt + "/sub/deeper/b.txt");
    assertThat(ok("stat", "-c", "%s %F", mnt + "/big.bin").out().trim())
        .isEqualTo(BIG + " regular file");
    assertThat(ok("du", "-sb", "--apparent-size", mnt + "/sub").out())
        .startsWith(String.valueOf(2 + 3 + 2 * 4096));
    assertThat(sha256(Files.readAllBytes(mnt.resolve("big.bin")))).isEqualTo(sha256(big));

    // Writes land in the UFS, whole, under their names.
    ok("cp", mnt + "/big.bin", mnt + "/copy.bin");
    assertThat(sha256(Files.readAllBytes(cluster.ufsRoot().resolve("data/copy.bin"))))
        .isEqualTo(sha256(big));
    ok("mkdir", mnt + "/made");
    ok("mv", mnt + "/copy.bin", mnt + "/made/moved.bin");
    assertThat(cluster.ufsRoot().resolve("data/made/moved.bin")).exists().hasSize(BIG);
    assertThat(cluster.ufsRoot().resolve("data/copy.bin")).doesNotExist();
    ok("sh", "-c", "echo again > " + mnt + "/hello2.txt && echo over > " + mnt + "/hello2.txt");
    assertThat(cluster.ufsRoot().resolve("data/hello2.txt")).hasContent("over");
    // close(2) publishes, even a file closed empty (the kernel's release comes later, unawaited);
    // a descriptor written after an empty close (a redirect's duplicate) writes the file anew.
    ok("sh", "-c", ": > " + mnt + "/empty.txt");
    assertThat(cluster.ufsRoot().resolve("data/empty.txt")).exists().isEmptyFile();
    ok("sh", "-c", "exec 3> " + mnt + "/dup.txt; exec 4>&3; exec 3>&-; echo late >&4; exec 4>&-");
    assertThat(cluster.ufsRoot().resolve("data/dup.txt")).hasContent("late");
    ok("rm", mnt + "/empty.txt", mnt + "/dup.txt");
    ok("chmod", "600", mnt + "/hello2.txt");
    assertThat(ok("stat", "-c", "%a", mnt + "/hello2.txt").out().trim()).isEqualTo("600");
    assertThat(Files.getPosixFilePermissions(cluster.ufsRoot().resolve("data/hello2.txt")))
        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    if ("root".equals(System.getProperty("user.name"))) {
      ok("chown", "nobody:nogroup", mnt + "/hello2.txt");
      assertThat(ok("stat", "-c", "%U:%G", mnt + "/hello2.txt").out().trim())
          .isEqualTo("nobody:nogroup");
      assertThat(Files.getOwner(cluster.ufsRoot().resolve("data/hello2.txt")).getName())
          .isEqualTo("nobody");
    }
    ok("rm", mnt + "/made/moved.bin", mnt + "/hello2.txt");
    ok("rmdir", mnt + "/made");
    assertThat(cluster.ufsRoot().resolve("data/made")).doesNotExist();

    // Errors carry the right errno.
    assertThat(run("cat", mnt + "/missing").out()).contains("No such file or directory");
    assertThat(run("rmdir", mnt + "/sub").out()).contains("Directory not empty");
    assertThat(run("mkdir", mnt + "/sub").out()).contains("File exists");
    try {
      Files.readAllBytes(mnt.resolve("nope"));
      throw new AssertionError("read a missing file");
    } catch (NoSuchFileException expected) {
      // ENOENT
    }

    // What the kernel asked is counted on the process's web port.
    assertThat(Scrape.page(fuse.webPort(), "/health")).isEqualTo("ok\n");
    assertThat(
            Scrape.value(
                fuse.webPort(), "strata_fuse_requests_seconds_count{op=\"read\",process=\"fuse\"}"))
        .isPositive();
    assertThat(
            Scrape.value(
                fuse.webPort(), "strata_fuse_request_errors_total{op=\"rmdir\",process=\"fuse\"}"))
        .as("rmdir of a folder that is not empty")
        .isEqualTo(1);
  }

  @Test
  void changesInPlace_landWhole_atClose_andHolesReadAsZeros() throws Exception {
    mount(false);
    Path ufs = cluster.ufsRoot().resolve("data/inplace.txt");
    Path sparse = cluster.ufsRoot().resolve("data/sparse.bin");
    Files.writeString(ufs, "hello, strata");
    try {
      String file = mnt + "/inplace.txt";
      Run r =
          run(
              "python3",
              "-c",
              String.join(
                  "\n",
                  "import os",
                  // Over some bytes, without O_TRUNC.
                  "fd = os.open('" + file + "', os.O_WRONLY)",
                  "os.write(fd, b'J')",
                  "os.close(fd)",
                  // Read-write: what was written reads back before the close.
                  "with open('" + file + "', 'r+b') as f:",
                  "    f.seek(7); f.write(b'STRATA'); f.seek(0); print(f.read().decode())",
                  // Created read-write: written out of order and read back before the close.
                  "with open('" + mnt + "/rw.txt', 'w+b') as f:",
                  "    f.write(b'hello'); f.seek(1); f.write(b'E'); f.seek(0); print(f.read().decode())",
                  // A file written front to back: past its end a hole, then back over the hole
                  // (a header filled in last), then cut back and written on, then read.
                  "fd = os.open('" + mnt + "/sparse.bin', os.O_WRONLY | os.O_CREAT, 0o644)",
                  "os.write(fd, b'a')",
                  "os.pwrite(fd, b'b', 10)",
                  "os.pwrite(fd, b'y', 5)",
                  "os.ftruncate(fd, 11)",
                  "os.pwrite(fd, b'c', 11)",
                  "os.close(fd)",
                  "fd = os.open('" + mnt + "/cut.bin', os.O_WRONLY | os.O_CREAT, 0o644)",
                  "os.write(fd, b'0123456789')",
                  "os.ftruncate(fd, 4)",
                  "os.pwrite(fd, b'X', 4)",
                  "os.close(fd)",
                  "print(open('" + mnt + "/cut.bin').read())"));
      assertThat(r.out().lines().toList())
          .as(r.out())
          .containsExactly("Jello, STRATA", "hEllo", "0123X");
      assertThat(cluster.ufsRoot().resolve("data/rw.txt")).hasContent("hEllo");
      assertThat(ufs).hasContent("Jello, STRATA");
      assertThat(Files.readAllBytes(sparse))
          .as("a write past the end leaves a hole of zeros; one behind lands there")
          .isEqualTo("a\0\0\0\0y\0\0\0\0bc".getBytes(StandardCharsets.US_ASCII));
      assertThat(cluster.ufsRoot().resolve("data/cut.bin")).hasContent("0123X");

      ok("sh", "-c", "echo ' and more' >> " + file);
      assertThat(ufs).hasContent("Jello, STRATA and more\n");
      ok("truncate", "-s", "5", file);
      assertThat(ufs).hasContent("Jello");
      ok("truncate", "-s", "8", file);
      assertThat(Files.readAllBytes(ufs))
          .isEqualTo("Jello\0\0\0".getBytes(StandardCharsets.US_ASCII));
      assertThat(ok("stat", "-c", "%s", file).out().trim()).isEqualTo("8");
      assertThat(ok("cat", file).out()).isEqualTo("Jello\0\0\0");
    } finally {
      Files.deleteIfExists(ufs);
      Files.deleteIfExists(sparse);
      Files.deleteIfExists(cluster.ufsRoot().resolve("data/rw.txt"));
      Files.deleteIfExists(cluster.ufsRoot().resolve("data/cut.bin"));
    }
  }

  @Test
  void aFileReplacedBehindTheMount_isReadWhole_neverCutAtTheOldSize() throws Exception {
    mount(false);
    Path ufs = cluster.ufsRoot().resolve("data/replaced.txt");
    Files.writeString(ufs, "short\n");
    try {
      // The kernel learns the size and the worker caches the bytes of this version.
      assertThat(ok("cat", mnt + "/replaced.txt").out()).isEqualTo("short\n");
      Path next = ufs.resolveSibling("replaced.next");
      String longer = "a much longer version of the file\n".repeat(100);
      Files.writeString(next, longer);
      Files.move(next, ufs, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      // Within the kernel's attribute timeout: the old version whole (not the new one cut at
      // the old size), then, once the mount's caches expire, the new one whole.
      assertThat(ok("cat", mnt + "/replaced.txt").out()).isIn("short\n", longer);
      await()
          .atMost(Duration.ofSeconds(3 + 2 + 1 + 10))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> run("cat", mnt + "/replaced.txt").out().equals(longer));
    } finally {
      // Through the mount, so that its listings forget the file at once.
      run("rm", "-f", mnt + "/replaced.txt");
    }
  }

  @Test
  void fsync_ofAWriter_publishesTheFileWhole_beforeClose() throws Exception {
    mount(false);
    Path ufs = cluster.ufsRoot().resolve("data/synced.bin");
    Run r =
        ok(
            "python3",
            "-c",
            String.join(
                "\n",
                "import os",
                "with open('" + mnt + "/synced.bin', 'wb') as f:",
                "    f.write(b'durable' * 1000)",
                "    f.flush()",
                "    os.fsync(f.fileno())",
                "    print(open('" + ufs + "', 'rb').read() == b'durable' * 1000)",
                // Writing on after fsync goes on with the file (a log, a database journal).
                "    f.write(b'more')",
                "print(open('" + ufs + "', 'rb').read() == b'durable' * 1000 + b'more')",
                // Through the mount, so that its listings forget the file at once.
                "os.remove('" + mnt + "/synced.bin')"));
    assertThat(r.out().lines().toList())
        .as("in the UFS, whole, when fsync returned; and what was written after at close")
        .containsExactly("True", "True");
  }

  @Test
  void python_randomOffsets_matchTheSource() throws Exception {
    mount(false);
    Run r =
        ok(
            "python3",
            "-c",
            String.join(
                "\n",
                "import hashlib, random",
                "src = open('" + cluster.ufsRoot().resolve("data/big.bin") + "', 'rb').read()",
                "rnd = random.Random(7)",
                "with open('" + mnt + "/big.bin', 'rb') as f:",
                "    for i in range(400):",
                "        off = rnd.randrange(len(src) + 10)",
                "        n = rnd.choice([1, 4096, 65536, 1 << 20, rnd.randrange(3 << 20)])",
                "        f.seek(off)",
                "        got = f.read(n)",
                "        want = src[off:off + n]",
                "        assert hashlib.sha256(got).digest() == hashlib.sha256(want).digest(), (off, n)",
                "print('ok')"));
    assertThat(r.out().trim()).isEqualTo("ok");
  }

  @Test
  void fio_sequentialAndRandomReads_verify() throws Exception {
    assumeThat(FuseHost.onPath("fio")).as("needs fio (apt-get install fio)").isTrue();
    mount(false);
    // fio lays a file out and rewrites it in place, which write-once files refuse: it writes its
    // verifiable blocks into the UFS directly, and reads them back through the mount.
    String options =
        " --size=32M --bs=64k --ioengine=psync --verify=crc32c --verify_fatal=1 --verify_state_save=0";
    Path inUfs = cluster.ufsRoot().resolve("data/fio.bin");
    ok(("fio --name=w --filename=" + inUfs + options + " --rw=write --do_verify=0").split(" "));
    try {
      ok(("fio --name=seq --filename=" + mnt + "/fio.bin" + options + " --rw=read").split(" "));
      ok(
          ("fio --name=rnd --filename="
                  + mnt
                  + "/fio.bin"
                  + options
                  + " --rw=randread --number_ios=300")
              .split(" "));
    } finally {
      Files.delete(inUfs);
    }
  }

  @Test
  void aFileAddedBehindTheMountsBack_appearsWithinTheMetadataTtl() throws Exception {
    mount(false);
    assertThat(ok("ls", mnt.toString()).out()).doesNotContain("late.txt");
    Path late = cluster.ufsRoot().resolve("data/late.txt");
    Files.writeString(late, "late\n");
    try {
      // The worker's listing TTL (3 s here), the mount's own (strata.user.metadata.cache.ttl, 2 s)
      // and
      // the kernel's entry timeout (1 s) bound the wait; 10 s more for a loaded host.
      await()
          .atMost(Duration.ofSeconds(3 + 2 + 1 + 10))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> run("ls", mnt.toString()).out().contains("late.txt"));
      assertThat(ok("cat", mnt + "/late.txt").out()).isEqualTo("late\n");
    } finally {
      Files.delete(late);
    }
  }

  @Test
  void statfs_isAnsweredByTheMountAlone_withoutAskingAWorker() throws Exception {
    Configuration noClientCache = cluster.clientConf().copy();
    noClientCache.set(
        UserKeys.METADATA_CACHE_TTL, "0s"); // every status the mount wants reaches the worker
    mount(false, noClientCache);
    assertThat(ok("df", "-h", mnt.toString()).out()).contains("strata:/data");
    int worker = cluster.worker(0).webPort();
    double before = metadataRequests(worker);
    for (int i = 0; i < 20; i++) {
      ok("stat", "-f", "-c", "%b %S", mnt.toString()); // statfs(2) alone
    }
    assertThat(metadataRequests(worker))
        .as("statuses or listings the worker served")
        .isEqualTo(before);
    assertThat(
            Scrape.value(
                fuse.webPort(),
                "strata_fuse_requests_seconds_count{op=\"statfs\",process=\"fuse\"}"))
        .isGreaterThanOrEqualTo(21);
  }

  private static double metadataRequests(int workerWebPort) throws Exception {
    return Scrape.page(workerWebPort, "/metrics")
        .lines()
        .filter(l -> l.startsWith("strata_worker_metadata_requests_total"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  @Test
  void readOnlyMount_refusesWritesWithEROFS() throws Exception {
    mount(true);
    assertThat(ok("cat", mnt + "/sub/a.txt").out()).isEqualTo("a\n");
    assertThat(run("touch", mnt + "/new.txt").out()).contains("Read-only file system");
    ShellRunner.Run list = new ShellRunner(cluster::clientConf).run("fuse", "list");
    assertThat(list.out()).containsPattern(mnt + " +strata:/data +ro +ok");
    assertThat(run("rm", mnt + "/hello.txt").out()).contains("Read-only file system");
    assertThat(cluster.ufsRoot().resolve("data/hello.txt")).exists();
  }

  @Test
  void stoppingWithAReaderInside_unmounts_andTheReaderGetsAnError() throws Exception {
    mount(false);
    Path readOnce = dir.resolve("read-once");
    Process reader =
        new ProcessBuilder(
                "python3",
                "-c",
                String.join(
                    "\n",
                    "import time",
                    "while True:",
                    "    with open('" + mnt + "/big.bin', 'rb') as f:",
                    "        while f.read(1 << 16):",
                    "            pass",
                    "    open('" + readOnce + "', 'w').close()",
                    "    time.sleep(0.01)"))
            .redirectErrorStream(true)
            .start();
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(readOnce) || !reader.isAlive());
    assertThat(reader.isAlive()).as("reading through the mount").isTrue();
    fuse.close();
    assertThat(reader.waitFor(30, TimeUnit.SECONDS))
        .as("the reader ends, it does not hang")
        .isTrue();
    assertThat(reader.exitValue()).isNotZero();
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(mnt.toString());
  }

  @Test
  void aBusyOrMissingMountPoint_getsAClearMessage() throws Exception {
    mount(false);
    FuseProcess second = new FuseProcess(cluster.clientConf(), mnt, "/data", false);
    try {
      second.start();
      throw new AssertionError("mounted twice");
    } catch (io.strata.core.status.StrataException e) {
      assertThat(e.getMessage()).contains("already a Strata mount");
    } finally {
      second.close();
    }
    FuseProcess missing =
        new FuseProcess(cluster.clientConf(), dir.resolve("nowhere"), "/data", false);
    try {
      missing.start();
      throw new AssertionError("mounted on a missing folder");
    } catch (io.strata.core.status.StrataException e) {
      assertThat(e.getMessage()).contains("does not exist");
    } finally {
      missing.close();
    }
  }
}
