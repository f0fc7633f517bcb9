package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.testkit.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every shell command against a real cluster, as a person would type it. */
class ShellTest {
  private static MiniCluster cluster;

  @TempDir Path local;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().workers(2).start();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static ShellRunner.Run strata(String... args) {
    return new ShellRunner(cluster::clientConf).run(args);
  }

  @Test
  void fileCommands_workEndToEnd() throws Exception {
    Path file = local.resolve("hello.txt");
    Files.writeString(file, "hello strata\n".repeat(1000));
    assertThat(strata("fs", "copyFromLocal", file.toString(), "/shell/hello.txt").code()).isZero();

    ShellRunner.Run ls = strata("fs", "ls", "/shell");
    assertThat(ls.code()).isZero();
    assertThat(ls.out()).contains("-rw-", "13000", "/shell/hello.txt");
    ShellRunner.Run lsFile = strata("fs", "ls", "/shell/hello.txt");
    assertThat(lsFile.code()).isZero();
    assertThat(lsFile.out()).as("a file shows itself").isEqualTo(ls.out());
    assertThat(strata("fs", "cat", "/shell/hello.txt").out()).isEqualTo(Files.readString(file));
    assertThat(strata("fs", "head", "-c", "5", "/shell/hello.txt").out()).isEqualTo("hello");
    assertThat(strata("fs", "tail", "-c", "7", "/shell/hello.txt").out()).isEqualTo("strata\n");
    assertThat(strata("fs", "stat", "/shell/hello.txt").out())
        .contains("length:      13000", "cached:      13000 bytes (100%)");

    assertThat(strata("fs", "mkdir", "/shell/sub/dir").code()).isZero();
    assertThat(strata("fs", "mv", "/shell/hello.txt", "/shell/sub/hello.txt").code()).isZero();
    assertThat(strata("fs", "count", "/shell").out()).contains("1            3            13000");
    assertThat(strata("fs", "du", "-s", "/shell").out()).contains("13000", "/shell");
    assertThat(strata("fs", "ls", "-R", "/shell").out())
        .contains("/shell/sub/dir", "/shell/sub/hello.txt");

    Path back = local.resolve("back");
    assertThat(strata("fs", "copyToLocal", "/shell", back.toString()).code()).isZero();
    assertThat(Files.readString(back.resolve("sub/hello.txt"))).isEqualTo(Files.readString(file));

    ShellRunner.Run rmDir = strata("fs", "rm", "/shell/sub");
    assertThat(rmDir.code()).isEqualTo(1);
    assertThat(rmDir.err()).startsWith("strata: IS_A_DIRECTORY:");
    assertThat(strata("fs", "rm", "-R", "/shell").code()).isZero();
    assertThat(strata("fs", "ls", "/shell").err())
        .isEqualTo("strata: NOT_FOUND: /shell does not exist\n");
  }

  @Test
  void everydayFileCommands_changeWhatTheyNameInTheUnderStorage() throws Exception {
    Path file = local.resolve("data.bin");
    Files.write(
        file, "strata bytes\n".repeat(5000).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(strata("fs", "copyFromLocal", file.toString(), "/every/a/data.bin").code()).isZero();
    Path ufs = cluster.ufsRoot().resolve("every");

    assertThat(strata("fs", "chmod", "-R", "go-rwx", "/every").out())
        .isEqualTo("changed the mode of 3 paths\n");
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(ufs.resolve("a/data.bin"))))
        .isEqualTo("rw-------");
    assertThat(strata("fs", "chmod", "640", "/every/a/data.bin").code()).isZero();
    assertThat(strata("fs", "ls", "/every/a").out()).contains("-rw-r-----");
    assertThat(strata("fs", "chmod", "u+s", "/every").err())
        .startsWith("strata: INVALID_ARGUMENT: invalid mode 'u+s'");

    assertThat(strata("fs", "chown", "-R", "nobody:nogroup", "/every").code()).isZero();
    assertThat(Files.getOwner(ufs.resolve("a/data.bin")).getName()).isEqualTo("nobody");
    assertThat(strata("fs", "chgrp", "daemon", "/every/a/data.bin").code()).isZero();
    assertThat(strata("fs", "stat", "/every/a/data.bin").out()).contains("nobody", "daemon");
    assertThat(strata("fs", "chown", "no-such-user-here", "/every").err())
        .startsWith("strata: ")
        .contains("no-such-user-here")
        .doesNotContain("\tat ");

    assertThat(strata("fs", "ln", "-s", "a/data.bin", "/every/sym").out())
        .isEqualTo("linked /every/sym -> a/data.bin\n");
    assertThat(Files.readSymbolicLink(ufs.resolve("sym")).toString()).isEqualTo("a/data.bin");
    assertThat(strata("fs", "ln", "/every/a/data.bin", "/every/hard").code()).isZero();
    assertThat(Files.isSameFile(ufs.resolve("hard"), ufs.resolve("a/data.bin"))).isTrue();
    ShellRunner.Run taken = strata("fs", "ln", "-s", "x", "/every/hard");
    assertThat(taken.code()).isEqualTo(1);
    assertThat(taken.err()).startsWith("strata: ALREADY_EXISTS:").doesNotContain("\tat ");
    assertThat(strata("fs", "rm", "/every/sym", "/every/hard").code()).isZero();

    assertThat(strata("fs", "test", "-e", "/every/a/data.bin").code()).isZero();
    assertThat(strata("fs", "test", "-f", "/every/a/data.bin").code()).isZero();
    assertThat(strata("fs", "test", "-d", "/every/a/data.bin").code()).isEqualTo(1);
    assertThat(strata("fs", "test", "-d", "/every/a").code()).isZero();
    ShellRunner.Run missing = strata("fs", "test", "-e", "/every/nothing");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.out() + missing.err()).isEmpty();

    String md5 =
        java.util.HexFormat.of()
            .formatHex(
                java.security.MessageDigest.getInstance("MD5").digest(Files.readAllBytes(file)));
    assertThat(strata("fs", "checksum", "/every/a/data.bin").out())
        .isEqualTo(md5 + "  /every/a/data.bin\n");

    assertThat(strata("fs", "cp", "-R", "/every/a", "/every/b").out())
        .isEqualTo("copied 1 files (65000 bytes) to /every/b\n");
    assertThat(ufs.resolve("b/data.bin")).hasSameBinaryContentAs(file);
    assertThat(strata("fs", "cp", "/every/a", "/every/c").err())
        .isEqualTo("strata: INVALID_ARGUMENT: /every/a is a folder; copy it with -R\n");
    assertThat(strata("fs", "cp", "/every/a/data.bin", "/every/b").err())
        .startsWith("strata: ALREADY_EXISTS:");
    assertThat(strata("fs", "cp", "-f", "/every/a/data.bin", "/every/b").code()).isZero();
    assertThat(strata("fs", "cp", "-R", "/every", "/every/b").err())
        .contains("cannot copy /every into itself");

    assertThat(strata("fs", "touch", "/every/new.txt").out()).isEqualTo("created /every/new.txt\n");
    assertThat(ufs.resolve("new.txt")).isEmptyFile();
    Files.setLastModifiedTime(
        ufs.resolve("new.txt"), java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L));
    assertThat(strata("fs", "touch", "/every/new.txt").out()).isEqualTo("touched /every/new.txt\n");
    assertThat(Files.getLastModifiedTime(ufs.resolve("new.txt")).toMillis())
        .isGreaterThan(System.currentTimeMillis() - 60_000);
    assertThat(strata("fs", "test", "-z", "/every/new.txt").code()).isZero();
    assertThat(strata("fs", "touch", "-d", "2020-09-13T12:26:40Z", "/every/new.txt").code())
        .isZero();
    assertThat(Files.getLastModifiedTime(ufs.resolve("new.txt")).toMillis())
        .isEqualTo(1_600_000_000_000L);
    assertThat(strata("fs", "touch", "-d", "@1500000000.5", "/every/dated.txt").out())
        .isEqualTo("created /every/dated.txt\n");
    assertThat(Files.getLastModifiedTime(ufs.resolve("dated.txt")).toMillis())
        .isEqualTo(1_500_000_000_500L);
    assertThat(strata("fs", "touch", "-c", "/every/not-made.txt").code()).isZero();
    assertThat(ufs.resolve("not-made.txt")).doesNotExist();
    ShellRunner.Run badTime = strata("fs", "touch", "-d", "tomorrow", "/every/new.txt");
    assertThat(badTime.err()).contains("cannot read the time 'tomorrow'").doesNotContain("\tat ");

    strata("fs", "cat", "/every/a/data.bin");
    ShellRunner.Run location = strata("fs", "location", "/every/a/data.bin");
    assertThat(location.out())
        .startsWith("/every/a/data.bin\n  owner:     127.0.0.1:")
        .contains("caches 63.5KiB of 63.5KiB (100%)", "  failover:  127.0.0.1:");
    assertThat(strata("fs", "rm", "-R", "/every").code()).isZero();
  }

  @Test
  void copyFromLocal_ofADirectoryTree_copiesEveryFile() throws Exception {
    Path tree = local.resolve("tree");
    for (int i = 0; i < 12; i++) {
      Path f = tree.resolve("d" + (i % 3)).resolve("f" + i);
      Files.createDirectories(f.getParent());
      Files.writeString(f, "file " + i);
    }
    ShellRunner.Run copy = strata("fs", "copyFromLocal", tree.toString(), "/trees/t1");
    assertThat(copy.out()).contains("copied 12 file(s)");
    assertThat(strata("fs", "cat", "/trees/t1/d2/f5").out()).isEqualTo("file 5");
    ShellRunner.Run again =
        strata("fs", "copyFromLocal", tree.resolve("d0/f0").toString(), "/trees/t1/d0/f0");
    assertThat(again.err()).startsWith("strata: ALREADY_EXISTS:");
    assertThat(
            strata("fs", "copyFromLocal", "-f", tree.resolve("d1/f1").toString(), "/trees/t1/d0/f0")
                .code())
        .isZero();
    assertThat(strata("fs", "cat", "/trees/t1/d0/f0").out()).isEqualTo("file 1");
  }

  @Test
  void mistakes_getOneLineAndANonZeroCode() {
    assertThat(strata("fs", "cat", "/missing").err())
        .isEqualTo("strata: NOT_FOUND: /missing does not exist\n");
    assertThat(strata("fs", "ls", "relative").err())
        .contains("INVALID_ARGUMENT", "must be absolute");
    assertThat(strata("fs", "cat", "/a/../../b").err()).contains("climbs above the root");
    ShellRunner.Run usage = strata("fs", "frobnicate");
    assertThat(usage.code()).isEqualTo(2);
    assertThat(usage.err()).contains("frobnicate");
    ShellRunner.Run typo = strata("conf", "get", "strata.worker.page.sise");
    assertThat(typo.code()).isEqualTo(1);
    assertThat(typo.err()).contains("did you mean 'strata.worker.page.size'");
    assertThat(strata("fs", "copyFromLocal", "/no/such/local/file", "/x").err())
        .contains("NOT_FOUND");
  }

  @Test
  void help_listsEveryCommand_thoughACommandLineBuildsOnlyWhatItNames() {
    assertThat(strata("--help").out())
        .contains("fs", "fsadmin", "conf", "job", "fuse", "format", "version", "bench");
    assertThat(strata("fs", "--help").out())
        .contains("ls", "stat", "distributedLoad", "copyFromLocal", "chmod", "chown", "chgrp")
        .contains("cp", "touch", "test", "checksum", "location");
    assertThat(strata("bench", "fuse").err())
        .isEqualTo(
            "strata: benchmarks run in a JVM of their own: run them as bin/strata bench fuse\n");
    assertThat(strata("fsadmin", "journal", "quorum", "--help").out())
        .contains("info", "elect", "add", "remove");
    assertThat(strata("fuse", "umount", "--help").code()).as("an alias").isZero();
    assertThat(strata("fs", "sta", "/").err()).contains("'sta'", "strata fs --help");
  }

  @Test
  void format_isRefusedWhileAMasterRunsOnTheJournal() {
    var conf = cluster.clientConf();
    conf.set(
        io.strata.core.conf.MasterKeys.JOURNAL_FOLDER,
        cluster.master(0).journalFolder().toString());
    ShellRunner.Run run = new ShellRunner(() -> conf).run("format", "-y");
    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err())
        .contains("FAILED_PRECONDITION", "a master is running on", "stop it first");
  }

  @Test
  void adminAndInfoCommands() {
    ShellRunner.Run report = strata("fsadmin", "report");
    assertThat(report.code()).isZero();
    assertThat(report.out()).contains("LEADER", "Workers: 2 live of 2", "LIVE", "Mounts:", "/");
    assertThat(strata("conf", "get", "strata.user.write.type").out()).isEqualTo("THROUGH\n");
    assertThat(strata("conf", "get", "--source", "strata.master.rpc.addresses").out())
        .contains("set at runtime");
    assertThat(strata("version").out()).startsWith("Strata ");
    assertThat(strata("--help").out()).contains("fs", "fsadmin", "conf", "version");
    assertThat(strata("fs", "ls", "--help").out()).contains("--recursive");
  }
}
