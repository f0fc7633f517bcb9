package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.ClusterReport;
import io.strata.core.proto.DecommissionWorkerRequest;
import io.strata.core.proto.GetClusterReportRequest;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.RegisterWorkerRequest;
import io.strata.core.proto.UnmountRequest;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.rpc.Channels;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.S3AccessKeys;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.testkit.MiniCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TOKEN-mode cluster (issue 25): nobody without a token signed with the cluster secret gets a
 * call served, users cannot administer, only the secret joins; each refusal changes nothing.
 */
class TokenModeTest {
  @TempDir static Path dir;
  private static MiniCluster cluster;
  private static ClusterSecret secret;

  @BeforeAll
  static void start() throws Exception {
    Path file = secretFile("cluster", SecretFiles.CLUSTER);
    secret = ClusterSecret.load(file);
    cluster =
        MiniCluster.builder()
            .workers(1)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, file.toString())
            .start();
    // What the under-storage holds, written by its owner (root, as the tests run): a user named by
    // a token is "other" to all of it.
    Path ufs = cluster.ufsRoot();
    ufsFile(ufs.resolve("public.txt"), "for everyone", "rw-r--r--");
    ufsFile(ufs.resolve("private/secret.txt"), "root's only", "rw-------");
    ufsFile(ufs.resolve("closed/inside.txt"), "readable, in a closed folder", "rw-r--r--");
    Files.setPosixFilePermissions(
        ufs.resolve("closed"), PosixFilePermissions.fromString("rwx------"));
    Files.createDirectories(ufs.resolve("shared"));
    Files.setPosixFilePermissions(
        ufs.resolve("shared"), PosixFilePermissions.fromString("rwxrwxrwx"));
  }

  private static void ufsFile(Path f, String content, String mode) throws Exception {
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void withoutATokenNothingIsServed() {
    Configuration anonymous = as(null);
    assertRefused(StatusCode.UNAUTHENTICATED, "no token", () -> readAs(anonymous, "/"));
    assertRefused(
        StatusCode.UNAUTHENTICATED,
        "no token",
        () -> call(anonymous, s -> s.getConfig(GetConfigRequest.getDefaultInstance())));
    ShellRunner.Run ls = new ShellRunner(() -> anonymous).run("fs", "ls", "/");
    assertThat(ls.code()).isNotZero();
    assertThat(ls.err()).contains("UNAUTHENTICATED", "no token");
  }

  @Test
  void theDataPortServesNothingBeforeTheHandshake() throws Exception {
    try (java.net.Socket s =
        new java.net.Socket(
            java.net.InetAddress.getLoopbackAddress(), cluster.worker(0).dataPort())) {
      s.setSoTimeout(10_000);
      s.getOutputStream()
          .write(
              io.netty.buffer.ByteBufUtil.getBytes(
                  new io.strata.core.transport.ReadRequest(5, "/alice/notes.txt", "any", 4, 0, 4)
                      .encode(io.netty.buffer.ByteBufAllocator.DEFAULT)));
      byte[] answer = s.getInputStream().readAllBytes();
      String text = new String(answer, StandardCharsets.UTF_8);
      assertThat(text).contains("the data port needs a token").doesNotContain("mine");
      assertThat(answer[4]).as("an END frame").isEqualTo(io.strata.core.transport.Frames.END);
    }
  }

  @Test
  void forgedAndExpiredTokensAreRefused() throws Exception {
    ClusterSecret other = ClusterSecret.load(secretFile("other", SecretFiles.OTHER));
    String forged = Tokens.issue(other, "mallory", Role.ADMIN, Instant.now().plusSeconds(600));
    assertRefused(StatusCode.UNAUTHENTICATED, "signature", () -> readAs(as(forged), "/"));
    String expired = Tokens.issue(secret, "alice", Role.ADMIN, Instant.now().minusSeconds(1));
    assertRefused(StatusCode.UNAUTHENTICATED, "expired", () -> readAs(as(expired), "/"));
  }

  @Test
  void aUserReadsAndWritesButChangesNothingOfTheCluster() throws Exception {
    Configuration alice = as(token("alice", Role.USER));
    try (FileSystem fs = FileSystem.create(alice)) {
      try (FileOutStream out =
          fs.create("/shared/notes.txt", new WriteOptions(true, UserKeys.WriteType.THROUGH, 0))) {
        out.write("mine".getBytes(StandardCharsets.UTF_8));
      }
      try (FileInStream in = fs.open("/shared/notes.txt")) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("mine");
      }
    }
    ClusterReport before = report();
    assertRefused(
        StatusCode.PERMISSION_DENIED,
        "UpdateConf needs an admin token; alice is a user",
        () ->
            call(
                alice,
                s ->
                    s.updateConf(
                        UpdateConfRequest.newBuilder()
                            .putValues(WorkerKeys.METADATA_TTL.name(), "1s")
                            .build())));
    String worker = before.getWorkers(0).getInfo().getId();
    assertRefused(
        StatusCode.PERMISSION_DENIED,
        "needs an admin token",
        () ->
            call(
                alice,
                s ->
                    s.decommissionWorker(
                        DecommissionWorkerRequest.newBuilder().setWorkerId(worker).build())));
    assertRefused(
        StatusCode.PERMISSION_DENIED,
        "needs an admin token",
        () -> call(alice, s -> s.unmount(UnmountRequest.newBuilder().setPath("/x").build())));
    ShellRunner.Run mint = new ShellRunner(() -> alice).run("fsadmin", "token", "create", "eve");
    assertThat(mint.code()).isNotZero();
    assertThat(mint.err()).contains("PERMISSION_DENIED", "CreateToken needs an admin token");
    ClusterReport after = report();
    assertThat(after.getConfVersion()).isEqualTo(before.getConfVersion());
    assertThat(after.getWorkers(0).getInfo().getState())
        .isEqualTo(before.getWorkers(0).getInfo().getState());
  }

  @Test
  void aUserReadsWritesAndChangesOnlyWhatThePermissionBitsAllow() throws Exception {
    Configuration alice = as(token("alice", Role.USER));
    ShellRunner shell = new ShellRunner(() -> alice);
    try (FileSystem fs = FileSystem.create(alice)) {
      assertThat(read(fs, "/public.txt")).isEqualTo("for everyone");
      assertRefused(
          StatusCode.PERMISSION_DENIED,
          "permission denied: read /private/secret.txt: alice lacks r (owner root",
          () -> read(fs, "/private/secret.txt"));
      assertRefused(
          StatusCode.PERMISSION_DENIED, "alice lacks x", () -> read(fs, "/closed/inside.txt"));
      assertRefused(StatusCode.PERMISSION_DENIED, "lacks r", () -> fs.listStatus("/closed"));
      assertRefused(
          StatusCode.PERMISSION_DENIED,
          "write /alice.txt: alice lacks wx",
          () -> write(fs, "/alice.txt", "mine"));
      assertRefused(
          StatusCode.PERMISSION_DENIED,
          "delete /public.txt",
          () -> fs.delete("/public.txt", false));
      write(fs, "/shared/by-alice.txt", "mine");
      assertThat(read(fs, "/shared/by-alice.txt")).isEqualTo("mine");
      // mkdir -p of a folder that exists asks for no write on its parent (as mkdir(2) answers
      // EEXIST first): Hadoop's mkdirs of an open output folder under a closed one.
      fs.mkdir("/shared", true);
      fs.mkdir("/shared/deeper/down", true);
      assertThat(fs.getStatus("/shared/deeper/down").directory()).isTrue();
      assertRefused(
          StatusCode.PERMISSION_DENIED, "alice lacks wx", () -> fs.mkdir("/alice-dir", true));
      assertRefused(
          StatusCode.PERMISSION_DENIED, "alice lacks x", () -> fs.mkdir("/closed/x", true));
      fs.mkdir("/closed", true);
    }
    ShellRunner.Run cat = shell.run("fs", "cat", "/private/secret.txt");
    assertThat(cat.code()).isNotZero();
    assertThat(cat.err()).contains("PERMISSION_DENIED", "alice lacks r");
    ShellRunner.Run chmod = shell.run("fs", "chmod", "777", "/public.txt");
    assertThat(chmod.err()).contains("PERMISSION_DENIED", "alice is not its owner");
    assertThat(Files.getPosixFilePermissions(cluster.ufsRoot().resolve("public.txt")))
        .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(Files.readString(cluster.ufsRoot().resolve("private/secret.txt")))
        .isEqualTo("root's only");

    try (FileSystem fs = FileSystem.create(as(token("root", Role.ADMIN)))) {
      assertThat(read(fs, "/private/secret.txt"))
          .as("an admin is not checked")
          .isEqualTo("root's only");
    }

    // A whole tree's listing (distributedLoad's flat walk) would pass /closed: superusers only.
    ManagedChannel channel =
        Channels.open(
            new HostPort("127.0.0.1", cluster.worker(0).rpcPort()),
            Credentials.ofToken(token("alice", Role.USER)));
    try {
      ListStatusRequest tree =
          ListStatusRequest.newBuilder().setPath("/").setRecursive(true).build();
      assertThatThrownBy(
              () ->
                  WorkerServiceGrpc.newBlockingStub(channel)
                      .listStatus(tree)
                      .forEachRemaining(r -> {}))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                assertThat(e.getStatus().getDescription())
                    .contains("alice may not list the whole tree under /");
              });
    } finally {
      channel.shutdownNow();
    }
  }

  private static String read(FileSystem fs, String path) {
    try (FileInStream in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void write(FileSystem fs, String path, String content) {
    try (FileOutStream out =
        fs.create(path, new WriteOptions(true, UserKeys.WriteType.THROUGH, 0))) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void onlyTheClusterSecretJoinsTheCluster() throws Exception {
    RegisterWorkerRequest impostor =
        RegisterWorkerRequest.newBuilder()
            .setAddress(
                WorkerAddress.newBuilder()
                    .setHost("127.0.0.1")
                    .setRpcPort(1)
                    .setDataPort(2)
                    .setWebPort(3))
            .build();
    int workers = report().getWorkersCount();
    assertRefused(
        StatusCode.PERMISSION_DENIED,
        "RegisterWorker needs the cluster secret",
        () -> call(as(token("root", Role.ADMIN)), s -> s.registerWorker(impostor)));
    ClusterSecret other =
        ClusterSecret.load(
            secretFile("stranger", "c3RyYW5nZXItc3RyYW5nZXItc3RyYW5nZXItc3RyYW5nZXI="));
    try (MasterClient stranger = new MasterClient(as(null), Credentials.service(other))) {
      assertRefused(
          StatusCode.UNAUTHENTICATED,
          "signature",
          () -> stranger.call("registerWorker", s -> s.registerWorker(impostor)));
    }
    // The secret does not let one register another host's address (and so steal its readers).
    RegisterWorkerRequest elsewhere =
        impostor.toBuilder()
            .setAddress(impostor.getAddress().toBuilder().setHost("10.1.2.3"))
            .build();
    assertRefused(
        StatusCode.PERMISSION_DENIED,
        "a worker registers only its own address: 10.1.2.3 called from 127.0.0.1",
        () -> call(cluster.clientConf(), s -> s.registerWorker(elsewhere)));
    assertThat(report().getWorkersCount()).isEqualTo(workers);
  }

  @Test
  void anAdminMintsTokensThatWork() {
    Configuration root = as(token("root", Role.ADMIN));
    ShellRunner.Run mint =
        new ShellRunner(() -> root).run("fsadmin", "token", "create", "bob", "--ttl", "1h");
    assertThat(mint.code()).as(mint.err()).isZero();
    assertThat(mint.err()).contains("token of bob valid until");
    String bob = mint.out().strip();
    assertThat(Tokens.verify(secret, bob, Instant.now()).role()).isEqualTo(Role.USER);
    ShellRunner.Run ls = new ShellRunner(() -> as(bob)).run("fs", "ls", "/");
    assertThat(ls.code()).as(ls.err()).isZero();
    assertThat(new ShellRunner(() -> root).run("fsadmin", "token", "create", "a\nb").err())
        .contains("INVALID_ARGUMENT", "user name");
  }

  /**
   * S3 access keys (issue 56): an admin mints them, a user cannot; the S3 endpoint (holding the
   * secret) resolves the printed access key to that user and to the printed secret key.
   */
  @Test
  void anAdminMintsS3KeysOfAUser() {
    Configuration root = as(token("root", Role.ADMIN));
    ShellRunner.Run mint =
        new ShellRunner(() -> root)
            .run("fsadmin", "s3", "credentials", "create", "bob", "--ttl", "1h");
    assertThat(mint.code()).as(mint.err()).isZero();
    assertThat(mint.err()).contains("S3 access keys of bob valid until");
    String[] lines = mint.out().strip().split("\n", -1);
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).startsWith("aws_access_key_id = ");
    assertThat(lines[1]).startsWith("aws_secret_access_key = ");
    String access = lines[0].substring("aws_access_key_id = ".length());
    S3AccessKeys.Resolved bob = S3AccessKeys.resolve(secret, access, Instant.now());
    assertThat(bob.principal()).isEqualTo(new Principal("bob", Role.USER));
    assertThat(bob.secretKey()).isEqualTo(lines[1].substring("aws_secret_access_key = ".length()));

    ShellRunner.Run byUser =
        new ShellRunner(() -> as(token("alice", Role.USER)))
            .run("fsadmin", "s3", "credentials", "create", "alice");
    assertThat(byUser.code()).isNotZero();
    assertThat(byUser.err()).contains("PERMISSION_DENIED", "needs an admin token");
    assertThat(byUser.out()).isEmpty();
  }

  // ---- helpers ----

  /** A client configuration without the cluster secret, carrying {@code token} (or none). */
  private static Configuration as(String token) {
    Configuration conf = cluster.clientConf();
    conf.set(SecurityKeys.SECRET_FILE, "");
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "2s");
    if (token != null) {
      try {
        Path file = Files.createTempFile(dir, "token-", "");
        Files.writeString(file, token + "\n");
        conf.set(SecurityKeys.TOKEN_FILE, file.toString());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return conf;
  }

  private static String token(String user, Role role) {
    return Tokens.issue(secret, user, role, Instant.now().plus(Duration.ofMinutes(10)));
  }

  private static void readAs(Configuration conf, String path) {
    try (FileSystem fs = FileSystem.create(conf)) {
      fs.listStatus(path);
    }
  }

  private static <T> T call(
      Configuration conf,
      Function<io.strata.core.proto.MasterServiceGrpc.MasterServiceBlockingStub, T> rpc) {
    try (MasterClient client = new MasterClient(conf)) {
      return client.call("test", rpc);
    }
  }

  /** The cluster as its own processes see it (the cluster secret's credentials). */
  private static ClusterReport report() {
    return call(
        cluster.clientConf(),
        s -> s.getClusterReport(GetClusterReportRequest.getDefaultInstance()));
  }

  private static void assertRefused(StatusCode code, String why, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(StrataException.class, e -> assertThat(e.code()).isEqualTo(code))
        .hasMessageContaining(why);
  }

  private static Path secretFile(String name, String content) {
    return SecretFiles.write(dir.resolve(name), content);
  }
}
