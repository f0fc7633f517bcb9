package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.NewEntry;
import io.strata.client.WriteOptions;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.FileType;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.proto.UnmountRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tls;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.CommandCodec;
import io.strata.master.journal.MasterCommand;
import io.strata.master.load.LoadControl;
import io.strata.testkit.MiniCluster;
import io.strata.testkit.TestCa;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Issue 54's attacks, as a cluster user would make them: a TOKEN-mode cluster with TLS on a local
 * folder whose files belong to real numeric owners (alice is uid 4001, mallory 4002; tokens name
 * them by uid, which the workers map to those ids), mallory attacking through the shell and the
 * Java client. Each attack ends in a one-line refusal naming who and what, and leaves the
 * under-storage as it was; alice is served throughout.
 */
class HostileUsersTest {
  private static final String ALICE = "4001";
  private static final String MALLORY = "4002";

  @TempDir static Path dir;
  private static MiniCluster cluster;
  private static ClusterSecret secret;
  private static Path ufs;
  private static TestCa ca;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(TestCa.available(), "openssl is not installed (apt-get install -y openssl)");
    Path file = SecretFiles.write(dir.resolve("cluster"), SecretFiles.CLUSTER);
    secret = ClusterSecret.load(file);
    ca = TestCa.create(dir.resolve("ca"), "cluster");
    TestCa.Issued node = ca.issue("node");
    cluster =
        MiniCluster.builder()
            .workers(1)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, file.toString())
            // Every port speaks TLS, as a hardened cluster's do; the attacks go through it.
            .property(SecurityKeys.TLS_ENABLED, "true")
            .property(SecurityKeys.TLS_CERT_FILE, node.cert().toString())
            .property(SecurityKeys.TLS_KEY_FILE, node.key().toString())
            .property(SecurityKeys.TLS_CA_FILE, ca.cert().toString())
            // The processes share one certificate, "node": the Raft port takes no other.
            .property(SecurityKeys.TLS_RAFT_PEERS, "node")
            .start();
    ufs = cluster.ufsRoot();
    folder("home", 0, "rwxr-xr-x");
    folder("home/ali", 4001, "rwx------");
    file("home/ali/secret", 4001, "rw-------", "alice's own");
    folder("tmp", 0, "rwxrwxrwt");
    folder("tmp/m", 4002, "rwxr-xr-x");
    // Put in mallory's folder by someone else: hers to remove, not to rewrite.
    file("tmp/m/payroll.csv", 0, "rw-r--r--", "salaries");
    // Loaded whole by its users: a shared folder with one of alice's own inside.
    folder("shared", 0, "rwxrwxrwt");
    folder("shared/a", 4001, "rwx------");
    file("shared/a/diary", 4001, "rw-------", "alice's diary");
    for (int i = 0; i < LoadControl.MAX_RUNNING_PER_USER + 1; i++) {
      folder("shared/m/l" + i, 4002, "rwxr-xr-x");
      for (int part = 0; part < 3; part++) {
        own(
            Files.write(ufs.resolve("shared/m/l" + i + "/part" + part), new byte[1 << 20]),
            4002,
            "rw-r--r--");
      }
    }
    folder("pub", 4001, "rwxr-xr-x");
    file("pub/draft", 4001, "rw-r--r--", "alice's draft");
    folder("data", 0, "rwxr-xr-x");
    file("data/table.csv", 0, "rw-r--r--", "rows");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

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

  /** Medium: a user could load any folder into the cache and stop anyone's load. */
  @Test
  void aUserLoadsOnlyWhatTheyMayList_andStopsOnlyTheirOwnJobs() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    ShellRunner.Run load = mallory.run("fs", "distributedLoad", "--submit", "/home/ali");
    assertOneLineRefusal(load.err(), "PERMISSION_DENIED", "load /home/ali: 4002 lacks r");
    // What lies in alice's folder stays hers to know: a file there, and nothing, answer alike.
    for (String probe : List.of("/home/ali/secret", "/home/ali/nothing-here")) {
      ShellRunner.Run probed = mallory.run("fs", "distributedLoad", "--submit", probe);
      assertOneLineRefusal(probed.err(), "PERMISSION_DENIED", "4002 lacks x on /home/ali");
    }
    ShellRunner.Run jobs = shellAs(ALICE).run("job", "list");
    assertThat(jobs.out()).as("mallory's refused load left no job").doesNotContain("/home/ali");

    ShellRunner.Run alices = shellAs(ALICE).run("fs", "distributedLoad", "/home/ali", "--json");
    assertThat(alices.code()).as(alices.err()).isZero();
    assertThat(alices.out()).contains("\"owner\":\"4001\"", "\"files\":1");
    long id = Long.parseLong(alices.out().replaceAll("(?s).*\"id\":(\\d+).*", "$1"));
    ShellRunner.Run stop = mallory.run("job", "stop", Long.toString(id));
    assertOneLineRefusal(
        stop.err(), "PERMISSION_DENIED", "is 4001's; 4002 may stop only their own jobs");
    assertThat(stop.err()).as("nor learns the job's path").doesNotContain("/home/ali");
    ShellRunner.Run status = mallory.run("job", "status", Long.toString(id));
    assertOneLineRefusal(
        status.err(), "PERMISSION_DENIED", "is 4001's; 4002 may see only their own jobs");
    ShellRunner.Run list = mallory.run("job", "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).as("another's jobs are not listed").doesNotContain("/home/ali");
    assertThat(shellAs(ALICE).run("job", "list").out()).contains("/home/ali");
    ShellRunner.Run own = shellAs(ALICE).run("job", "stop", Long.toString(id));
    assertOneLineRefusal(own.err(), "FAILED_PRECONDITION", "is not running");
  }

  /**
   * Medium: a user who may list a shared folder loaded everything under it, other users' private
   * folders included, as the walk runs as the cluster; and one user could run every load slot.
   */
  @Test
  void aUsersLoadWalksOnlyWhatTheyMayList_andRunsAFewAtOnce() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    ShellRunner.Run hers = mallory.run("fs", "distributedLoad", "/shared", "--json");
    assertThat(hers.code()).as(hers.out() + hers.err()).isZero();
    ShellRunner.Run alices = shellAs(ALICE).run("fs", "distributedLoad", "/shared", "--json");
    assertThat(alices.code()).as(alices.err()).isZero();
    assertThat(files(hers.out()))
        .as("alice's 0700 /shared/a is not walked for mallory")
        .isEqualTo(files(alices.out()) - 1);

    // Forced (the parts are cached already), a file per batch at 256 KiB/s: each runs for about
    // 12 s, holding a loader thread for jobs with a limit as it waits.
    List<String> running = new ArrayList<>();
    try {
      for (int i = 0; i < LoadControl.MAX_RUNNING_PER_USER; i++) {
        String path = "/shared/m/l" + i;
        ShellRunner.Run r =
            mallory.run(
                "fs",
                "distributedLoad",
                path,
                "--submit",
                "--force",
                "--batch-size",
                "1",
                "--bandwidth",
                "256KiB");
        assertThat(r.code()).as(r.err()).isZero();
        running.add(path);
      }
      ShellRunner.Run fifth =
          mallory.run(
              "fs",
              "distributedLoad",
              "/shared/m/l" + LoadControl.MAX_RUNNING_PER_USER,
              "--submit",
              "--force",
              "--batch-size",
              "1",
              "--bandwidth",
              "256KiB");
      assertOneLineRefusal(
          fifth.err(), "RESOURCE_EXHAUSTED", "4002 runs 4 loads already, the most a user may");
      // Her slow loads wait on loader threads of their own: another user's load goes on.
      ShellRunner.Run others =
          shellAs(ALICE).run("fs", "distributedLoad", "/pub", "--force", "--json");
      assertThat(others.code()).as(others.out() + others.err()).isZero();
    } finally {
      for (String path : running) {
        mallory.run("fs", "distributedLoad", path, "--stop");
      }
    }
  }

  private static long files(String json) {
    return Long.parseLong(json.replaceAll("(?s).*\"files\":(\\d+).*", "$1"));
  }

  /** Item 7: any user could pin, or set a TTL on, what others cache. */
  @Test
  void aUserPinsAndSetsTtlsOnlyWhereTheyMayWrite() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    ShellRunner.Run pin = mallory.run("fs", "pin", "/data/table.csv");
    assertOneLineRefusal(pin.err(), "PERMISSION_DENIED", "pin /data/table.csv: 4002 lacks w");
    ShellRunner.Run ttl = mallory.run("fs", "setTtl", "/home/ali", "1min");
    assertOneLineRefusal(ttl.err(), "PERMISSION_DENIED", "set a TTL on /home/ali: 4002 lacks w");
    ShellRunner.Run own = mallory.run("fs", "pin", "/tmp/m");
    assertThat(own.code()).as(own.err()).isZero();
    assertThat(mallory.run("fs", "unpin", "/tmp/m").code()).isZero();
    ShellRunner.Run alices = shellAs(ALICE).run("fs", "pin", "/home/ali");
    assertThat(alices.code()).as(alices.err()).isZero();
    ShellRunner.Run unpin = mallory.run("fs", "unpin", "/home/ali");
    assertOneLineRefusal(unpin.err(), "PERMISSION_DENIED", "unpin /home/ali: 4002 lacks w");
    assertThat(shellAs(ALICE).run("fs", "unpin", "/home/ali").code()).isZero();
  }

  /**
   * Item 10: in TOKEN mode on loopback without TLS (local mode), any account of the host could send
   * the Raft port a journal entry of its own, as a Ratis client needs no token. With TLS, as this
   * class's cluster runs, and without, as local mode runs.
   */
  @Test
  void theRaftPort_takesNoEntryFromAClientWithoutTheClustersKey() throws Exception {
    assertRaftTakesNoEntry(cluster);
    Path file = SecretFiles.write(dir.resolve("plain-cluster"), SecretFiles.CLUSTER);
    try (MiniCluster plain =
        MiniCluster.builder()
            .workers(0)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, file.toString())
            .start()) {
      assertRaftTakesNoEntry(plain);
    }
  }

  /**
   * Medium: any certificate of the cluster's authority (a user's, for mutual TLS) was taken on the
   * Raft port; with strata.security.tls.raft.peers only the masters' are.
   */
  @Test
  void theRaftPort_takesNoEntryFromAnotherCertificateOfTheClustersAuthority() throws Exception {
    TestCa.Issued mallorys = ca.issue("mallory");
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.TLS_ENABLED, "true");
    conf.set(SecurityKeys.TLS_CERT_FILE, mallorys.cert().toString());
    conf.set(SecurityKeys.TLS_KEY_FILE, mallorys.key().toString());
    conf.set(SecurityKeys.TLS_CA_FILE, ca.cert().toString());
    Tls tls = Tls.forClient(conf).orElseThrow();
    Parameters p = new Parameters();
    GrpcTlsConfig mutual = new GrpcTlsConfig(tls.keyManager(), tls.peerTrust(), true);
    GrpcConfigKeys.TLS.setConf(p, mutual);
    GrpcConfigKeys.Client.setTlsConf(p, mutual);
    GrpcConfigKeys.Admin.setTlsConf(p, mutual);
    assertRaftTakesNoEntry(cluster, p);
  }

  private static void assertRaftTakesNoEntry(MiniCluster cluster) throws Exception {
    assertRaftTakesNoEntry(cluster, new Parameters());
  }

  private static void assertRaftTakesNoEntry(MiniCluster cluster, Parameters tls) throws Exception {
    HostPort rpc =
        HostPort.parse(cluster.clientConf().get(CommonKeys.MASTER_RPC_ADDRESSES).get(0), "master");
    RaftPeer master =
        RaftPeer.newBuilder()
            .setId(rpc.host() + "_" + rpc.port())
            .setAddress("127.0.0.1:" + cluster.journalPort(0))
            .build();
    RaftGroupId group =
        RaftGroupId.valueOf(
            UUID.nameUUIDFromBytes("strata-master-group".getBytes(StandardCharsets.UTF_8)));
    RaftProperties props = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(props, TimeDuration.valueOf(3, TimeUnit.SECONDS));
    byte[] pin = CommandCodec.encode(new MasterCommand.SetPathPolicy("/data", true, null));
    try (RaftClient raft =
        RaftClient.newBuilder()
            .setRaftGroup(RaftGroup.valueOf(group, master))
            .setProperties(props)
            .setParameters(tls)
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
      assertThatThrownBy(() -> raft.io().send(Message.valueOf(ByteString.copyFrom(pin))))
          .isInstanceOf(Exception.class);
    }
    assertThat(view(cluster.clientConf()).getPoliciesList())
        .as("the journal took no entry")
        .noneMatch(p -> p.getPath().equals("/data"));
  }

  /** Item 4: every user's cluster view carried the mounts' S3 credentials. */
  @Test
  void aUsersOrAdminsClusterView_carriesNoCredentials() throws Exception {
    String secretKey = "s3-secret-of-the-cluster";
    int port = io.strata.testkit.FreePorts.next();
    LocalS3 s3 = LocalS3.builder().port(port).mode(LocalS3Mode.IN_MEMORY).build();
    s3.start();
    try (S3Client store =
            S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("AK", secretKey)))
                .build();
        MasterClient master = new MasterClient(cluster.clientConf())) {
      store.createBucket(r -> r.bucket("data"));
      master.call(
          "mount",
          m ->
              m.mount(
                  MountRequest.newBuilder()
                      .setMount(
                          MountPoint.newBuilder()
                              .setPath("/s3")
                              .setUfsUri("s3://data")
                              .putOptions("s3.endpoint", "http://127.0.0.1:" + port)
                              .putOptions("s3.path.style.access", "true")
                              .putOptions("s3.access.key", "AK")
                              .putOptions("s3.secret.key", secretKey))
                      .build()));
      try {
        assertThat(view(as(MALLORY)).toString()).contains("s3.endpoint").doesNotContain(secretKey);
        assertThat(view(as("ops", Role.ADMIN)).toString())
            .as("nor an admin's: a token to run the cluster is not the store's key")
            .contains("s3.endpoint")
            .doesNotContain(secretKey);
        assertThat(view(cluster.clientConf()).toString())
            .as("the cluster's own processes still get them")
            .contains(secretKey);
      } finally {
        master.call("unmount", m -> m.unmount(UnmountRequest.newBuilder().setPath("/s3").build()));
      }
    } finally {
      s3.shutdown();
    }
  }

  private static ClusterView view(Configuration conf) {
    try (MasterClient master = new MasterClient(conf)) {
      return master.call(
          "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
    }
  }

  private static void assertOneLineRefusal(String err, String code, String why) {
    assertThat(err).contains(code, why).doesNotContain("\tat ", "Exception");
    assertThat(err.strip().lines().count()).as(err).isEqualTo(1);
  }

  private static void folder(String rel, int uid, String mode) throws IOException {
    Path p = Files.createDirectories(ufs.resolve(rel));
    own(p, uid, mode);
  }

  private static void file(String rel, int uid, String mode, String content) throws IOException {
    own(Files.writeString(ufs.resolve(rel), content), uid, mode);
  }

  private static void own(Path p, int uid, String mode) throws IOException {
    Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode.replace('t', 'x')));
    if (mode.endsWith("t")) {
      Files.setAttribute(p, "unix:mode", 01777);
    }
  }

  private static int uid(Path p) throws IOException {
    return (int) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static int gid(Path p) throws IOException {
    return (int) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
  }

  private static ShellRunner shellAs(String user) {
    Configuration conf = as(user);
    return new ShellRunner(() -> conf);
  }

  private static Configuration as(String user) {
    return as(user, Role.USER);
  }

  private static Configuration as(String user, Role role) {
    Configuration conf = cluster.clientConf();
    conf.set(SecurityKeys.SECRET_FILE, "");
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "2s");
    String token = Tokens.issue(secret, user, role, Instant.now().plus(Duration.ofMinutes(10)));
    try {
      Path file = Files.createTempFile(dir, "token-", "");
      Files.writeString(file, token + "\n");
      conf.set(SecurityKeys.TOKEN_FILE, file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return conf;
  }

  private static String read(FileSystem fs, String path) {
    try (FileInStream in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(FileSystem fs, String path, String content) {
    try (FileOutStream out =
        fs.create(path, new WriteOptions(true, UserKeys.WriteType.THROUGH, 0))) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }
}
