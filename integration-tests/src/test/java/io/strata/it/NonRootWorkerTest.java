package io.strata.it;

import static io.strata.it.HostileUsers.read;
import static io.strata.it.HostileUsers.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.FileType;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78, items 1 and 6, on a worker that does not run as root (as {@code bin/strata-start.sh
 * local} and a worker installed under an account of its own run): it cannot act as its callers, so
 * its own checks, on statuses it caches, are the only guard, and its account reaches more than a
 * user may (here alice's home, readable by the workers' group). A folder the worker knows as
 * mallory's, swapped on the host for a link into alice's home, must lead nowhere.
 */
class NonRootWorkerTest {
  private static final int WORKER = 4100;
  private static final int ALICE = 4001;
  private static final int MALLORY = 4002;

  /** What the worker trusts of the host before it looks again: short, so a host's change shows. */
  private static final Duration METADATA_TTL = Duration.ofSeconds(1);

  @TempDir static Path dir;
  private static ForkedCluster cluster;
  private static ClusterSecret secret;
  private static Path ufs;

  @BeforeAll
  static void start() throws Exception {
    assumeThat(FuseHost.onPath("setpriv"))
        .as("running the worker as another account needs setpriv (util-linux)")
        .isTrue();
    Path lib = Scripts.ROOT.resolve("lib");
    assertThat(lib).as("lib/ is built by the dist module before these tests").isDirectory();
    Path secretFile = SecretFiles.write(dir.resolve("cluster"), SecretFiles.CLUSTER);
    secret = ClusterSecret.load(secretFile);
    // The worker's, as an install gives it: the master, root here, reads it anyway.
    Files.setAttribute(secretFile, "unix:uid", WORKER);
    cluster =
        ForkedCluster.builder()
            .workers(1)
            .dir(dir)
            // The checkout's lib/: the worker's account cannot read root's Maven repository.
            .classpath(lib + "/*")
            .workerAccount(new ForkedCluster.Account(WORKER, WORKER))
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secretFile.toString())
            .property(WorkerKeys.METADATA_TTL, METADATA_TTL.toMillis() + "ms")
            .start();
    ufs = cluster.ufsRoot();
    own(ufs, 0, "rwxr-xr-x");
    own(Files.createDirectories(ufs.resolve("home/ali")), ALICE, WORKER, "rwxr-x---");
    own(
        Files.writeString(ufs.resolve("home/ali/secret"), "alice's own"),
        ALICE,
        WORKER,
        "rw-r-----");
    own(ufs.resolve("home"), 0, "rwxr-xr-x");
    Path tmp = Files.createDirectories(ufs.resolve("tmp"));
    own(tmp, 0, "rwxrwxrwx");
    Files.setAttribute(tmp, "unix:mode", 01777);
    // Mallory's, open to the worker's account, which writes for her.
    own(Files.createDirectories(ufs.resolve("tmp/m")), MALLORY, MALLORY, "rwxrwxrwx");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aFolderSwappedForALink_leadsNowhereTheWorkersAccountMayGo() throws Exception {
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThatThrownBy(() -> read(fs, "/home/ali/secret"))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
          .hasMessageContaining("4002 lacks");

      // Hers and open to the worker's account (a folder the worker made would be its account's).
      own(Files.createDirectory(ufs.resolve("tmp/m/d")), MALLORY, MALLORY, "rwxrwxrwx");
      write(fs, "/tmp/m/d/f", "mallory's");
      assertThat(read(fs, "/tmp/m/d/f")).isEqualTo("mallory's");
      assertThat(fs.listStatus("/tmp/m/d")).extracting(s -> s.name()).containsExactly("f");

      // On the host, as her own account may (the folder above is hers): the folder the worker
      // holds as one she may write becomes a link into alice's home.
      Path d = ufs.resolve("tmp/m/d");
      Files.move(d, ufs.resolve("tmp/m/d0"));
      Files.createSymbolicLink(d, Path.of("../../home/ali"));
      Files.setAttribute(d, "unix:uid", MALLORY, LinkOption.NOFOLLOW_LINKS);

      assertThatThrownBy(() -> read(fs, "/tmp/m/d/secret")).isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.getStatus("/tmp/m/d/secret")).isInstanceOf(StrataException.class);
      // A listing cached before the swap may still be served within its TTL (her own folder's,
      // as HostileUsersTest allows for reads); what lies behind the link, never.
      assertThat(listedOrRefused(fs, "/tmp/m/d")).doesNotContain("secret");
      assertThatThrownBy(() -> write(fs, "/tmp/m/d/planted", "mallory's"))
          .isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.delete("/tmp/m/d/secret", false))
          .isInstanceOf(StrataException.class);
      assertThatThrownBy(() -> fs.rename("/tmp/m/d/secret", "/tmp/m/stolen"))
          .isInstanceOf(StrataException.class);
    }
    try (Stream<Path> left = Files.list(ufs.resolve("home/ali"))) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("secret");
    }
    assertThat(Files.readString(ufs.resolve("home/ali/secret"))).isEqualTo("alice's own");
    assertThat(ufs.resolve("tmp/m/stolen")).doesNotExist();
  }

  /**
   * High 5 where the worker's checks are the only guard: a recursive delete checked only the top
   * folder's parent, so a user who may write {@code /proj} deleted alice's tree, which the worker's
   * account (her group) may write.
   */
  @Test
  void aRecursiveDelete_needsEveryFolderOfTheTree() throws Exception {
    own(Files.createDirectories(ufs.resolve("proj")), 0, "rwxrwxrwx");
    own(Files.createDirectories(ufs.resolve("proj/alice/runs")), ALICE, WORKER, "rwxrwx---");
    own(ufs.resolve("proj/alice"), ALICE, WORKER, "rwxrwx---");
    own(
        Files.writeString(ufs.resolve("proj/alice/runs/r1"), "alice's run"),
        ALICE,
        WORKER,
        "rw-rw----");
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThatThrownBy(() -> fs.delete("/proj/alice", true))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
          .hasMessageContaining("4002 lacks");
    }
    assertThat(Files.readString(ufs.resolve("proj/alice/runs/r1"))).isEqualTo("alice's run");
  }

  /**
   * High 4: a FIFO's extended attributes, read by opening it, held a worker thread until a writer
   * came; 16 such calls held every metadata thread.
   */
  @Test
  void theAttributesOfAFifo_holdNoWorkerThread() throws Exception {
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      own(Files.createDirectory(ufs.resolve("tmp/m/fifo")), MALLORY, MALLORY, "rwxrwxrwx");
      fs.createSpecial("/tmp/m/fifo/p", FileType.FIFO, 0, NewEntry.DEFAULT);
      assertTimeoutPreemptively(
          Duration.ofSeconds(60),
          () -> {
            for (int i = 0; i < 32; i++) {
              try {
                fs.xattrs("/tmp/m/fifo/p");
              } catch (StrataException refused) {
                // Refused is as good: the point is that it returns.
              }
            }
          });
      write(fs, "/tmp/m/fifo/after", "still served");
      assertThat(read(fs, "/tmp/m/fifo/after")).isEqualTo("still served");
    }
  }

  /**
   * Item 3 where the worker's account may write what mallory may not: alice's file, open to the
   * workers' group, is neither rewritten nor hard-linked into mallory's folder for her to rewrite
   * (the kernel lets the worker's account link a file it may read and write).
   */
  @Test
  void aFileTheWorkerMayWrite_isNotRewrittenNorLinkedForAUserWhoMayNot() throws Exception {
    own(
        Files.writeString(ufs.resolve("tmp/m/payroll.csv"), "salaries"),
        ALICE,
        WORKER,
        "rw-rw-r--");
    own(Files.createDirectories(ufs.resolve("data")), 0, "rwxr-xr-x");
    own(Files.writeString(ufs.resolve("data/table.csv"), "rows"), ALICE, WORKER, "rw-rw----");
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThat(read(fs, "/tmp/m/payroll.csv")).isEqualTo("salaries");
      assertThatThrownBy(() -> write(fs, "/tmp/m/payroll.csv", "mallory's figures"))
          .isInstanceOf(StrataException.class)
          .hasMessageContaining("4002 lacks w");
      assertThatThrownBy(() -> fs.createHardLink("/data/table.csv", "/tmp/m/table-link.csv"))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
          .hasMessageContaining("4002 lacks");
    }
    assertThat(ufs.resolve("tmp/m/table-link.csv")).doesNotExist();
    assertThat(Files.readString(ufs.resolve("tmp/m/payroll.csv"))).isEqualTo("salaries");
    assertThat(Files.readString(ufs.resolve("data/table.csv"))).isEqualTo("rows");
  }

  /**
   * Item 9 where the worker's account owns what it writes: a file mallory had it write must not
   * become a set-id program of that account, nor may she have a device node made.
   */
  @Test
  void noSetIdFileNorDeviceNode_forAUser() throws Exception {
    own(Files.createDirectory(ufs.resolve("tmp/m/bin")), MALLORY, MALLORY, "rwxrwxrwx");
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      write(fs, "/tmp/m/bin/tool", "#!/bin/sh");
      assertThatThrownBy(() -> fs.setMode("/tmp/m/bin/tool", 04755))
          .isInstanceOfSatisfying(
              StrataException.class,
              e ->
                  assertThat(e.code())
                      .isIn(StatusCode.PERMISSION_DENIED, StatusCode.NOT_PERMITTED));
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
   * A permission taken away on the host (the worker's account cannot change alice's file, so that
   * is where she changes it) holds for a connection that read before, once the worker's metadata
   * TTL has passed: the grant does not outlive the status it was given on.
   */
  @Test
  void aPermissionRevokedOnTheHost_holdsOnAConnectionThatReadBefore() throws Exception {
    own(Files.createDirectories(ufs.resolve("pub")), 0, "rwxr-xr-x");
    Path draft =
        own(
            Files.writeString(ufs.resolve("pub/draft"), "alice's draft"),
            ALICE,
            WORKER,
            "rw-r--r--");
    try (FileSystem fs = FileSystem.create(as(MALLORY))) {
      assertThat(read(fs, "/pub/draft")).isEqualTo("alice's draft");
      own(draft, ALICE, WORKER, "rw-r-----");
      await()
          .atMost(METADATA_TTL.multipliedBy(10))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () ->
                  assertThatThrownBy(() -> read(fs, "/pub/draft"))
                      .isInstanceOfSatisfying(
                          StrataException.class,
                          e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
                      .hasMessageContaining("4002 lacks r"));
    }
  }

  private static List<String> listedOrRefused(FileSystem fs, String path) {
    try {
      return fs.listStatus(path).stream().map(FileInfo::name).toList();
    } catch (StrataException refused) {
      return List.of();
    }
  }

  private static Configuration as(int user) throws IOException {
    Configuration conf = cluster.clientConf();
    conf.set(SecurityKeys.SECRET_FILE, "");
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "2s");
    String token =
        Tokens.issue(
            secret, String.valueOf(user), Role.USER, Instant.now().plus(Duration.ofMinutes(10)));
    Path file = Files.createTempFile(dir, "token-", "");
    Files.writeString(file, token + "\n");
    conf.set(SecurityKeys.TOKEN_FILE, file.toString());
    return conf;
  }

  private static void own(Path p, int uid, String mode) throws IOException {
    own(p, uid, uid, mode);
  }

  private static Path own(Path p, int uid, int gid, String mode) throws IOException {
    Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    return p;
  }
}
