package io.strata.it;

import static io.strata.it.HostileUsers.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.FileType;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Attacks on paths (issues 54 and 78): links and folders swapped for links, what a user makes,
 * overwrites and hard links, set-id files and device nodes, a permission revoked mid-connection.
 * Each ends in a one-line refusal naming who and what, and leaves the under-storage as it was;
 * alice is served throughout. The cluster: {@link HostileUsers}.
 */
@ExtendWith(HostileUsers.class)
class HostileUsersTest {
  /** Item 2: a link's own 0777 let anyone through into a 0700 folder. */
  @Test
  void aLinkIntoAnotherUsersFolder_opensNothing() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    assertThat(mallory.run("fs", "ln", "-s", "../../home/ali", "/tmp/m/l").code()).isZero();
    ShellRunner.Run cat = mallory.run("fs", "cat", "/tmp/m/l/secret");
    assertThat(cat.code()).isNotZero();
    assertOneLineRefusal(cat.err(), "PERMISSION_DENIED", "4002 lacks x on /home/ali");
    assertThat(cat.out()).doesNotContain("alice's own");
    ShellRunner.Run ls = mallory.run("fs", "ls", "/tmp/m/l");
    assertOneLineRefusal(ls.err(), "PERMISSION_DENIED", "4002 lacks r on /home/ali");
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThatThrownBy(() -> read(fs, "/tmp/m/l/secret"))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED));
    }
    try (FileSystem fs = FileSystem.create(as(ALICE))) {
      // Issue 78: no link is followed on the way to an entry, for alice neither (FUSE follows it,
      // a name at a time); she reads her file by its own path.
      assertThatThrownBy(() -> read(fs, "/tmp/m/l/secret"))
          .hasMessageContaining("passes a symbolic link");
      assertThat(read(fs, "/home/ali/secret")).isEqualTo("alice's own");
    }
    assertThat(Files.readString(ufs.resolve("home/ali/secret"))).isEqualTo("alice's own");
    ShellRunner.Run invalidate = mallory.run("fs", "invalidate", "/home/ali/secret");
    assertOneLineRefusal(invalidate.err(), "PERMISSION_DENIED", "4002 lacks x on /home/ali");
  }

  /**
   * Item 2, raced: the worker checks statuses (cached ones too), the kernel follows what stands at
   * a name when it opens it. A folder the check saw as mallory's, swapped for a link into alice's
   * folder before the store opens it, led the store there as the worker's account.
   */
  @Test
  void aFolderSwappedForALinkAfterTheCheck_leadsNowhereTheUserMayNotGo() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    assertThat(mallory.run("fs", "mkdir", "/tmp/m/d").code()).isZero();
    ShellRunner.Run stat = mallory.run("fs", "stat", "/tmp/m/d");
    assertThat(stat.code()).as(stat.err()).isZero();
    // On the host, as her own account may: the folder the worker holds as hers becomes a link.
    Path d = ufs.resolve("tmp/m/d");
    Files.delete(d);
    Files.createSymbolicLink(d, Path.of("../../home/ali"));
    Files.setAttribute(d, "unix:uid", 4002, LinkOption.NOFOLLOW_LINKS);

    ShellRunner.Run ls = mallory.run("fs", "ls", "/tmp/m/d");
    assertOneLineRefusal(ls.err(), "PERMISSION_DENIED", "4002");
    assertThat(ls.out()).doesNotContain("secret");
    ShellRunner.Run rm = mallory.run("fs", "rm", "/tmp/m/d/secret");
    assertOneLineRefusal(rm.err(), "PERMISSION_DENIED", "4002");
    ShellRunner.Run mv = mallory.run("fs", "mv", "/tmp/m/d/secret", "/tmp/m/stolen");
    assertOneLineRefusal(mv.err(), "PERMISSION_DENIED", "4002");
    ShellRunner.Run mkdir = mallory.run("fs", "mkdir", "/tmp/m/d/planted");
    assertOneLineRefusal(mkdir.err(), "PERMISSION_DENIED", "4002");
    Path local = Files.writeString(dir.resolve("planted.txt"), "mallory's");
    ShellRunner.Run put = mallory.run("fs", "copyFromLocal", local.toString(), "/tmp/m/d/planted");
    assertOneLineRefusal(put.err(), "PERMISSION_DENIED", "4002");
    ShellRunner.Run cat = mallory.run("fs", "cat", "/tmp/m/d/secret");
    assertThat(cat.code()).isNotZero();
    assertThat(cat.out()).doesNotContain("alice's own");

    try (Stream<Path> left = Files.list(ufs.resolve("home/ali"))) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("secret");
    }
    assertThat(ufs.resolve("tmp/m/stolen")).doesNotExist();
    try (FileSystem fs = FileSystem.create(as(ALICE))) {
      assertThat(read(fs, "/home/ali/secret")).isEqualTo("alice's own");
    }
  }

  /**
   * Issue 78, critical 1: a file of hers read (so checked, granted on her connection and its
   * folders cached as hers), then its folder swapped for a link into alice's home behind the
   * worker's back (through a second worker, or on the host), then an open that asks the
   * under-storage again (a sync interval of 0, any client may): the check passed on the cached
   * statuses and the look-up, as the worker's account, followed the link and served alice's bytes.
   * No link is followed on the way to an entry now.
   */
  @Test
  void aFolderOnceReadFrom_swappedForALink_servesNothingBehindIt() throws Exception {
    Configuration conf = as(MALLORY);
    conf.set(UserKeys.METADATA_SYNC_INTERVAL, "0");
    try (FileSystem fs = FileSystem.create(conf)) {
      fs.mkdir("/tmp/m/s", true);
      write(fs, "/tmp/m/s/secret", "mallory's");
      assertThat(read(fs, "/tmp/m/s/secret")).isEqualTo("mallory's");
      Path s = ufs.resolve("tmp/m/s");
      Files.move(s, ufs.resolve("tmp/m/s0"));
      Files.createSymbolicLink(s, Path.of("../../home/ali"));
      Files.setAttribute(s, "unix:uid", 4002, LinkOption.NOFOLLOW_LINKS);

      assertThatThrownBy(() -> read(fs, "/tmp/m/s/secret"))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
          .hasMessageContaining("passes a symbolic link")
          .hasMessageNotContaining("alice's own");
      assertThatThrownBy(() -> fs.getStatus("/tmp/m/s/secret")).isInstanceOf(StrataException.class);
    }
    // Trusting the TTL, a reader may still be served her own old file from the cache; never
    // alice's.
    ShellRunner.Run cat = shellAs(MALLORY).run("fs", "cat", "/tmp/m/s/secret");
    assertThat(cat.out()).doesNotContain("alice's own");
    assertThat(Files.readString(ufs.resolve("home/ali/secret"))).isEqualTo("alice's own");
  }

  /**
   * Critical 1 as the issue made it, with two workers and nothing done on the host: mallory reads a
   * file of hers through the worker that owns it (its folders cached there as hers, a grant on her
   * connection), then, through the cluster, renames the folder (a request the folder's own worker
   * serves, so the file's worker hears of it only by watch) and puts a link into alice's home in
   * its place. Whatever she then asks of either worker about the old names, reads, status, listing,
   * writes or deletes, reaches nothing of alice's.
   */
  @Test
  void aFolderSwappedThroughAnotherWorker_reachesNothingBehindTheLink() throws Exception {
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      String d = folderServedApartFromItsFile(fs, "/tmp/m/x", "secret");
      fs.mkdir(d, true);
      write(fs, d + "/secret", "mallory's");
      assertThat(read(fs, d + "/secret")).isEqualTo("mallory's");

      fs.rename(d, d + "-old");
      fs.createSymlink(d, "../../home/ali", NewEntry.DEFAULT);

      assertThatThrownBy(() -> read(fs, d + "/secret")).isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.getStatus(d + "/secret")).isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.listStatus(d)).isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> write(fs, d + "/planted", "mallory's"))
          .isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.delete(d + "/secret", false)).isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.rename(d + "/secret", "/tmp/m/stolen"))
          .isInstanceOf(StrataException.class);
    }
    try (Stream<Path> left = Files.list(ufs.resolve("home/ali"))) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("secret");
    }
    assertThat(Files.readString(ufs.resolve("home/ali/secret"))).isEqualTo("alice's own");
  }

  /** A folder name under {@code prefix} whose worker is not the worker of its file {@code name}. */
  private static String folderServedApartFromItsFile(FileSystem fs, String prefix, String name) {
    for (int i = 0; i < 100; i++) {
      String d = prefix + i;
      if (!fs.owners(d).get(0).equals(fs.owners(d + "/" + name).get(0))) {
        return d;
      }
    }
    throw new IllegalStateException("every folder tried shares a worker with its file");
  }

  /** Confirmed from outside: a user who made a folder could not write into it. */
  @Test
  void whatAUserMakes_isTheirs() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    assertThat(mallory.run("fs", "mkdir", "/tmp/m/own").code()).isZero();
    Path local = Files.writeString(dir.resolve("local.txt"), "mine");
    ShellRunner.Run copy = mallory.run("fs", "copyFromLocal", local.toString(), "/tmp/m/own/f");
    assertThat(copy.code()).as(copy.err()).isZero();
    assertThat(uid(ufs.resolve("tmp/m/own"))).isEqualTo(4002);
    assertThat(uid(ufs.resolve("tmp/m/own/f"))).isEqualTo(4002);
    assertThat(gid(ufs.resolve("tmp/m/own/f"))).isEqualTo(4002);
    // The folders made on the way are hers too, by a mkdir with parents or by a write.
    ShellRunner.Run mkdir = mallory.run("fs", "mkdir", "/tmp/m/a/b/c");
    assertThat(mkdir.code()).as(mkdir.err()).isZero();
    ShellRunner.Run deep = mallory.run("fs", "copyFromLocal", local.toString(), "/tmp/m/x/y/f");
    assertThat(deep.code()).as(deep.err()).isZero();
    for (String made : List.of("tmp/m/a", "tmp/m/a/b", "tmp/m/a/b/c", "tmp/m/x", "tmp/m/x/y")) {
      assertThat(uid(ufs.resolve(made))).as(made).isEqualTo(4002);
      assertThat(gid(ufs.resolve(made))).as(made).isEqualTo(4002);
    }
    assertThat(uid(ufs.resolve("tmp/m"))).as("what was there stays as it was").isEqualTo(4002);
    assertThat(mallory.run("fs", "mkdir", "/tmp/m/a/b/c2").code()).isZero();
    assertThat(mallory.run("fs", "chmod", "700", "/tmp/m/own").code()).isZero();
    assertThat(Files.getPosixFilePermissions(ufs.resolve("tmp/m/own")))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
  }

  /** Item 3: an overwrite was checked against the folder only, and a hard link against nothing. */
  @Test
  void aFileOneMayNotWrite_cannotBeRewritten_norLinkedToBeRewritten() throws Exception {
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThatThrownBy(() -> write(fs, "/tmp/m/payroll.csv", "mallory's figures"))
          .isInstanceOf(StrataException.class)
          .hasMessageContaining("4002 lacks w");
    }
    ShellRunner.Run link =
        shellAs(MALLORY).run("fs", "ln", "/data/table.csv", "/tmp/m/table-link.csv");
    assertOneLineRefusal(link.err(), "PERMISSION_DENIED", "4002 lacks rw");
    assertThat(ufs.resolve("tmp/m/table-link.csv")).doesNotExist();
    assertThat(Files.readString(ufs.resolve("tmp/m/payroll.csv"))).isEqualTo("salaries");
    assertThat(Files.readString(ufs.resolve("data/table.csv"))).isEqualTo("rows");
  }

  /** Item 9: modes were masked with 07777 and any user could make a device node. */
  @Test
  void noSetIdFileNorDeviceNode_forAUser() throws Exception {
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      fs.mkdir("/tmp/m/bin", true);
      write(fs, "/tmp/m/bin/tool", "#!/bin/sh");
      assertThatThrownBy(() -> fs.setMode("/tmp/m/bin/tool", 04755))
          .isInstanceOf(StrataException.class)
          .hasMessageContaining("4002 may not set the set-id bits of mode 4755");
      assertThatThrownBy(
              () ->
                  fs.createSpecial(
                      "/tmp/m/bin/mem",
                      FileType.CHAR_DEVICE,
                      (1L << 8) | 1,
                      new NewEntry(0666, -1, -1)))
          .isInstanceOf(StrataException.class)
          .hasMessageContaining("superuser only");
    }
    assertThat((int) Files.getAttribute(ufs.resolve("tmp/m/bin/tool"), "unix:mode") & 07000)
        .isZero();
    assertThat(ufs.resolve("tmp/m/bin/mem")).doesNotExist();
  }

  /**
   * Medium: a connection that once read a file kept reading it after its owner took access away.
   */
  @Test
  void aRevokedPermission_holdsOnAConnectionThatReadBefore() throws Exception {
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThat(read(fs, "/pub/draft")).isEqualTo("alice's draft");
      try (FileSystem alice = FileSystem.create(as(ALICE))) {
        alice.setMode("/pub/draft", 0600);
      }
      assertThatThrownBy(() -> read(fs, "/pub/draft"))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
          .hasMessageContaining("4002 lacks r");
    }
  }

  /**
   * Medium: pages are cached by version, and a listing tells anyone who may list a folder each
   * file's version; a version cached while the file was private was served to whoever named it once
   * the path became readable (the check was on the path, not on the version).
   */
  @Test
  void aVersionCachedWhilePrivate_isNotServedOnceThePathBecomesReadable() throws Exception {
    try (FileSystem alice = FileSystem.create(as(ALICE));
        FileSystem fs = FileSystem.create(as(MALLORY))) {
      write(alice, "/pub/diary", "alice's diary");
      alice.setMode("/pub/diary", 0600);
      assertThat(read(alice, "/pub/diary")).isEqualTo("alice's diary");
      FileInfo diary =
          fs.listStatus("/pub").stream()
              .filter(f -> f.name().equals("diary"))
              .findFirst()
              .orElseThrow();

      write(alice, "/pub/diary", "a public page");
      alice.setMode("/pub/diary", 0644);

      assertThat(read(fs, "/pub/diary")).isEqualTo("a public page");
      assertThatThrownBy(
              () -> {
                try (FileInStream in = fs.open(diary)) {
                  in.readAllBytes();
                }
              })
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION))
          .hasMessageContaining("/pub/diary changed")
          .hasMessageNotContaining("alice's diary");
    }
  }
}
