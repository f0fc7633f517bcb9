package io.strata.it;

import static io.strata.it.Commands.ok;
import static io.strata.it.Commands.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.UserKeys;
import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 79 step (a): a mount served by Strata's own FUSE protocol loop ({@code -o engine=strata},
 * {@code KernelLoop}), driven by the tools people use: coreutils and Python read, list, write,
 * rename, link and remove through it, and what they see is what the under-storage holds.
 */
class KernelLoopMountTest {
  private static final int BIG = 9 << 20;

  @TempDir static Path dir;
  private static MiniCluster cluster;
  private static FuseProcess fuse;
  private static Path mnt;
  private static Path ufs;
  private static byte[] big;

  @BeforeAll
  static void mount() throws Exception {
    FuseHost.assumeMountable();
    cluster = MiniCluster.builder().start();
    ufs = Files.createDirectories(cluster.ufsRoot().resolve("data"));
    big = new byte[BIG + 12345];
    new Random(79).nextBytes(big);
    Files.write(ufs.resolve("big.bin"), big);
    Files.createDirectories(ufs.resolve("sub/deeper"));
    Files.writeString(ufs.resolve("hello.txt"), "hello, strata\n");
    Files.writeString(ufs.resolve("sub/deeper/b.txt"), "bb\n");
    for (int i = 0; i < 300; i++) {
      Files.writeString(ufs.resolve("sub/f" + i), "file " + i + "\n");
    }
    mnt = Files.createDirectories(dir.resolve("mnt"));
    Configuration conf = cluster.clientConf();
    // Long kernel timeouts: what others change reaches the kernel as notices, not by expiry.
    fuse =
        new FuseProcess(
            conf, mnt, "/data", false, "engine=strata,attr_timeout=600,entry_timeout=600");
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
  void servedByTheOwnLoop_whichCountsRequestsByOpcode() throws Exception {
    assertThat(Thread.getAllStackTraces().keySet())
        .anyMatch(t -> t.getName().startsWith("fuse-kernel-"));
    assertThat(FuseKeys.ENGINE.name()).isEqualTo("strata.fuse.engine");
    ok("cat", mnt + "/hello.txt");
    String metrics = Scrape.page(fuse.webPort(), "/metrics");
    for (String opcode : List.of("lookup", "open", "read", "release")) {
      assertThat(metrics)
          .containsPattern(
              "strata_fuse_kernel_requests_total\\{opcode=\"" + opcode + "\"[^}]*} [1-9]");
    }
  }

  @Test
  void reading_listingAndStat_asOnALocalDisk() throws Exception {
    assertThat(ok("cat", mnt + "/hello.txt").out()).isEqualTo("hello, strata\n");
    assertThat(sha256(Files.readAllBytes(mnt.resolve("big.bin")))).isEqualTo(sha256(big));
    assertThat(ok("sha256sum", mnt + "/big.bin").out()).startsWith(sha256(big));
    assertThat(ok("stat", "-c", "%s %F", mnt + "/big.bin").out().trim())
        .isEqualTo(big.length + " regular file");
    // 300 names and more: READDIR is asked again from where the last reply ended.
    assertThat(ok("ls", mnt + "/sub").out().lines().count()).isEqualTo(301);
    assertThat(ok("find", mnt.toString(), "-name", "b.txt").out().trim())
        .isEqualTo(mnt + "/sub/deeper/b.txt");
    assertThat(run("cat", mnt + "/no-such-file").code()).isNotZero();
    String py =
        "import os,zlib\n"
            + "t=0\n"
            + "for i in range(300):\n"
            + "  with open(os.path.join('"
            + mnt
            + "/sub','f%d'%i),'rb') as f: t+=len(f.read())\n"
            + "print(t)\n";
    long expected = 0;
    for (int i = 0; i < 300; i++) {
      expected += ("file " + i + "\n").length();
    }
    assertThat(ok("python3", "-c", py).out().trim()).isEqualTo(Long.toString(expected));
  }

  @Test
  void writing_renamingLinkingAndRemoving_landInTheUnderStorage() throws Exception {
    ok("cp", mnt + "/big.bin", mnt + "/copy.bin");
    assertThat(sha256(Files.readAllBytes(ufs.resolve("copy.bin")))).isEqualTo(sha256(big));
    ok("mkdir", "-p", mnt + "/made/inner");
    ok("mv", mnt + "/copy.bin", mnt + "/made/inner/moved.bin");
    assertThat(ufs.resolve("made/inner/moved.bin")).exists().hasSize(big.length);
    assertThat(ufs.resolve("copy.bin")).doesNotExist();
    // A folder renamed: what the kernel holds below it follows.
    ok("mv", mnt + "/made", mnt + "/renamed");
    assertThat(ok("cat", mnt + "/renamed/inner/moved.bin").out().length()).isPositive();
    ok("sh", "-c", "echo again > " + mnt + "/w.txt && echo more >> " + mnt + "/w.txt");
    assertThat(ufs.resolve("w.txt")).hasContent("again\nmore");
    ok("truncate", "-s", "3", mnt + "/w.txt");
    assertThat(ufs.resolve("w.txt")).hasContent("aga");
    ok("chmod", "640", mnt + "/w.txt");
    assertThat(ok("stat", "-c", "%a", mnt + "/w.txt").out().trim()).isEqualTo("640");
    ok("touch", "-d", "2001-02-03 04:05:06 UTC", mnt + "/w.txt");
    assertThat(ok("stat", "-c", "%Y", mnt + "/w.txt").out().trim()).isEqualTo("981173106");
    ok("ln", "-s", "w.txt", mnt + "/link");
    assertThat(ok("readlink", mnt + "/link").out().trim()).isEqualTo("w.txt");
    assertThat(ok("cat", mnt + "/link").out()).isEqualTo("aga");
    ok("ln", mnt + "/w.txt", mnt + "/hard");
    assertThat(ok("stat", "-c", "%h", mnt + "/hard").out().trim()).isEqualTo("2");
    ok("rm", mnt + "/link", mnt + "/hard", mnt + "/w.txt");
    ok("rm", "-r", mnt + "/renamed");
    assertThat(ufs.resolve("w.txt")).doesNotExist();
    assertThat(ufs.resolve("renamed")).doesNotExist();
    assertThat(ok("df", mnt.toString()).out()).contains(mnt.toString());
  }

  /**
   * Issue 79 (b): with 600 s kernel timeouts, a change made through another client reaches the
   * mount at once: the worker's event reaches the mount's metadata cache, and the loop tells the
   * kernel (FUSE_NOTIFY_INVAL_ENTRY and _INODE).
   */
  @Test
  void changesThroughAnotherClient_reachTheKernelAtOnce() throws Exception {
    try (FileSystem other = FileSystem.create(cluster.clientConf())) {
      write(other, "/data/elsewhere.txt", "one\n");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> run("cat", mnt + "/elsewhere.txt").out().equals("one\n"));
      write(other, "/data/elsewhere.txt", "two, longer\n");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> run("cat", mnt + "/elsewhere.txt").out().equals("two, longer\n"));
      other.delete("/data/elsewhere.txt", false);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> run("cat", mnt + "/elsewhere.txt").code() != 0);
    }
  }

  private static void write(FileSystem fs, String path, String content) {
    try (FileOutStream out =
        fs.create(path, new WriteOptions(true, UserKeys.WriteType.THROUGH, 0))) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** fsx's kind of check: positioned writes, truncates, reads and reopens against a model. */
  @Test
  void randomWritesAndReads_matchTheirModel() throws Exception {
    for (long seed = 1; seed <= 3; seed++) {
      assertThat(RandomWrites.run(mnt.resolve("random" + seed), seed, 400)).isGreaterThan(100);
    }
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
