package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.S3Keys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Role;
import io.strata.core.security.S3AccessKeys;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tokens;
import io.strata.testkit.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A TOKEN-mode cluster's users through the S3 endpoint (issue 56): an access key derived from a
 * user's token makes the endpoint act as that user, refused where the shell would refuse them, and
 * their multipart uploads are theirs alone; expired and forged keys are refused.
 */
class S3TokenModeTest {
  @TempDir static Path dir;

  private static MiniCluster cluster;
  private static ClusterSecret secret;
  private static S3Process endpoint;
  private static FileSystem root;

  @BeforeAll
  static void start() throws Exception {
    Path secretFile = SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER);
    secret = ClusterSecret.load(secretFile);
    cluster =
        MiniCluster.builder()
            .workers(1)
            .domainSockets()
            .ssd("64MiB")
            .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secretFile.toString())
            .start();
    // Written by the under-storage's owner (root, as tests run): token users are "other" to it.
    Path data = cluster.ufsRoot().resolve("data");
    ufsFile(data.resolve("public.txt"), "for everyone", "rw-r--r--");
    ufsFile(data.resolve("private/secret.txt"), "root's only", "rw-------");
    Files.setPosixFilePermissions(
        data.resolve("private"), PosixFilePermissions.fromString("rwx------"));
    Files.createDirectories(data.resolve("shared"));
    Files.setPosixFilePermissions(
        data.resolve("shared"), PosixFilePermissions.fromString("rwxrwxrwx"));

    Configuration c = cluster.clientConf();
    c.set(SecurityKeys.SECRET_FILE, secretFile.toString());
    c.set(S3Keys.ANONYMOUS_READ_BUCKETS, "data");
    endpoint = TestEndpoints.start(c, dir);
    root = FileSystem.create(c);
  }

  private static void ufsFile(Path f, String content, String mode) throws Exception {
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(root, endpoint, cluster);
  }

  private static S3Client as(String user, Duration ttl) {
    S3AccessKeys.Pair keys = keys(secret, user, ttl);
    return TestEndpoints.client(endpoint.port(), keys.accessKey(), keys.secretKey());
  }

  /** An unsigned request: its status and body. */
  private static java.net.http.HttpResponse<String> unsigned(String method, String path)
      throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + endpoint.port() + path))
                .method(method, java.net.http.HttpRequest.BodyPublishers.noBody())
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A bucket opened to anonymous readers (strata.s3.anonymous.read.buckets) is read without a
   * signature, only what any account may read, and only read; every other unsigned request is
   * refused as before.
   */
  @Test
  void anOpenBucket_isReadWithoutASignature_asNoAccount_andOnlyRead() throws Exception {
    var get = unsigned("GET", "/data/public.txt");
    assertThat(get.statusCode()).as(get.body()).isEqualTo(200);
    assertThat(get.body()).isEqualTo("for everyone");
    assertThat(unsigned("HEAD", "/data/public.txt").statusCode()).isEqualTo(200);
    var list = unsigned("GET", "/data?list-type=2&delimiter=%2F");
    assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
    assertThat(list.body()).contains("<Key>public.txt</Key>", "<Prefix>private/</Prefix>");
    assertThat(unsigned("HEAD", "/data").statusCode()).isEqualTo(200);

    var privateFile = unsigned("GET", "/data/private/secret.txt");
    assertThat(privateFile.statusCode()).isEqualTo(403);
    assertThat(privateFile.body()).contains("<Code>AccessDenied</Code>");
    for (String[] refused :
        new String[][] {
          {"PUT", "/data/new.txt"},
          {"DELETE", "/data/public.txt"},
          {"GET", "/data?uploads"},
          {"GET", "/"},
          {"GET", "/other/public.txt"}
        }) {
      var r = unsigned(refused[0], refused[1]);
      assertThat(r.statusCode()).as("%s %s", refused[0], refused[1]).isEqualTo(403);
      assertThat(r.body()).contains("Anonymous access is not allowed");
    }
    assertThat(root.exists("/data/public.txt")).isTrue();
  }

  @Test
  void aUsersKeyActsAsThatUser_refusedWhereTheirRightsEnd() {
    try (S3Client alice = as("alice", Duration.ofHours(1))) {
      assertThat(alice.getObjectAsBytes(g -> g.bucket("data").key("public.txt")).asUtf8String())
          .isEqualTo("for everyone");
      assertS3Error(
          () -> alice.getObjectAsBytes(g -> g.bucket("data").key("private/secret.txt")),
          403,
          "AccessDenied");
      assertS3Error(
          () ->
              alice.putObject(
                  p -> p.bucket("data").key("private/planted.txt"), RequestBody.fromString("x")),
          403,
          "AccessDenied");
      assertThat(root.exists("/data/private/planted.txt")).isFalse();

      alice.putObject(p -> p.bucket("data").key("shared/mine.txt"), RequestBody.fromString("a"));
      assertThat(root.getStatus("/data/shared/mine.txt").owner()).isEqualTo(ownerOfAlicesFiles());
    }
  }

  @Test
  void aUsersMultipartUploadIsTheirsAlone() {
    try (S3Client alice = as("alice", Duration.ofHours(1));
        S3Client bob = as("bob", Duration.ofHours(1))) {
      String id =
          alice.createMultipartUpload(c -> c.bucket("data").key("shared/parts.bin")).uploadId();
      var part =
          alice.uploadPart(
              u -> u.bucket("data").key("shared/parts.bin").uploadId(id).partNumber(1),
              RequestBody.fromString("alice's part"));

      assertThat(bob.listMultipartUploads(l -> l.bucket("data")).uploads()).isEmpty();
      assertThat(alice.listMultipartUploads(l -> l.bucket("data")).uploads()).hasSize(1);
      assertS3Error(
          () ->
              bob.abortMultipartUpload(a -> a.bucket("data").key("shared/parts.bin").uploadId(id)),
          404,
          "NoSuchUpload");
      assertS3Error(
          () ->
              bob.completeMultipartUpload(
                  c ->
                      c.bucket("data")
                          .key("shared/parts.bin")
                          .uploadId(id)
                          .multipartUpload(
                              m ->
                                  m.parts(
                                      CompletedPart.builder()
                                          .partNumber(1)
                                          .eTag(part.eTag())
                                          .build()))),
          404,
          "NoSuchUpload");

      alice.completeMultipartUpload(
          c ->
              c.bucket("data")
                  .key("shared/parts.bin")
                  .uploadId(id)
                  .multipartUpload(
                      m ->
                          m.parts(
                              CompletedPart.builder().partNumber(1).eTag(part.eTag()).build())));
      assertThat(root.getStatus("/data/shared/parts.bin").owner()).isEqualTo(ownerOfAlicesFiles());
    }
  }

  /**
   * A file the worker keeps whole is sent from that file (sendfile), which the endpoint opens
   * itself: for a user, only once the worker let them open the version (a 0600 file of root's,
   * cached whole, is refused to alice as it is uncached).
   */
  @Test
  void aFileKeptWholeIsSentOnlyToWhoMayReadIt() throws Exception {
    byte[] open = new byte[64 << 10];
    byte[] closed = new byte[64 << 10];
    new Random(5).nextBytes(open);
    new Random(6).nextBytes(closed);
    Path ufs = cluster.ufsRoot().resolve("data");
    Files.write(ufs.resolve("whole-open.bin"), open);
    Files.setPosixFilePermissions(
        ufs.resolve("whole-open.bin"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.write(ufs.resolve("whole-closed.bin"), closed);
    Files.setPosixFilePermissions(
        ufs.resolve("whole-closed.bin"), PosixFilePermissions.fromString("rw-------"));
    for (String name : new String[] {"/data/whole-open.bin", "/data/whole-closed.bin"}) {
      var version = root.getStatus(name);
      assertThat(root.keepWhole(version, Long.MAX_VALUE)).as(name + " kept whole").isTrue();
      assertThat(root.wholeFile(version)).isPresent();
    }
    try (S3Client alice = as("alice", Duration.ofHours(1))) {
      assertThat(alice.getObjectAsBytes(g -> g.bucket("data").key("whole-open.bin")).asByteArray())
          .isEqualTo(open);
      assertS3Error(
          () -> alice.getObjectAsBytes(g -> g.bucket("data").key("whole-closed.bin")),
          403,
          "AccessDenied");
    }
  }

  /**
   * A user's client is made at their first request, kept while a request holds it, closed once idle
   * for {@link S3Callers#IDLE}, and made again at their next; the file's keys act as the endpoint's
   * own operations; an expired key is refused.
   */
  @Test
  void usersClientsAreMadeOnDemandAndClosedWhenIdle() throws Exception {
    AtomicInteger made = new AtomicInteger();
    AtomicReference<Instant> now = new AtomicReference<>(Instant.now());
    Clock clock =
        new Clock() {
          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now.get();
          }
        };
    UploadStore uploads = new UploadStore(dir.resolve("callers-uploads"));
    S3Operations own = S3Operations.own(root, uploads, "us-east-1", 0);
    try (S3Callers callers =
        new S3Callers(
            key -> key.equals("OPERATOR") ? Optional.of("x") : Optional.empty(),
            secret,
            own,
            (who, until) -> {
              made.incrementAndGet();
              return FileSystem.create(
                  cluster.clientConf(), Credentials.issuing(secret, who, until));
            },
            (client, user) -> S3Operations.user(client, uploads, "us-east-1", user),
            clock,
            java.util.Set.of())) {
      assertThat(callers.lease("OPERATOR").ops()).isSameAs(own);
      String alice = keys(secret, "alice", Duration.ofDays(1)).accessKey();
      S3Callers.Lease held = callers.lease(alice);
      try (S3Callers.Lease again = callers.lease(alice)) {
        assertThat(again.ops()).isSameAs(held.ops()).isNotSameAs(own);
      }
      assertThat(made).hasValue(1);

      now.set(now.get().plus(S3Callers.IDLE).plusSeconds(60));
      callers.closeIdle();
      try (S3Callers.Lease after = callers.lease(alice)) {
        assertThat(after.ops()).as("held: kept").isSameAs(held.ops());
      }
      held.close();

      now.set(now.get().plus(S3Callers.IDLE).plusSeconds(60));
      callers.closeIdle();
      try (S3Callers.Lease fresh = callers.lease(alice)) {
        assertThat(fresh.ops()).isNotSameAs(held.ops());
      }
      assertThat(made).hasValue(2);

      String expired = keys(secret, "bob", Duration.ofMinutes(1)).accessKey();
      now.set(now.get().plus(Duration.ofMinutes(2)));
      assertThatThrownBy(() -> callers.lease(expired))
          .isInstanceOfSatisfying(
              S3Error.class, e -> assertThat(e.getMessage()).contains("expired"));
    }
  }

  /** The owner of a file alice writes with her token through Strata's own client. */
  private static String ownerOfAlicesFiles() {
    String token = Tokens.issue(secret, "alice", Role.USER, Instant.now().plusSeconds(600));
    try (FileSystem alice = FileSystem.create(cluster.clientConf(), Credentials.ofToken(token))) {
      String path = "/data/shared/by-client-" + System.nanoTime();
      alice.create(path, WriteOptions.overwriting()).close();
      return root.getStatus(path).owner();
    }
  }

  @Test
  void expiredAndForgedKeysAreRefused() {
    assertReadRefused(keys(secret, "alice", Duration.ofMillis(1)), "InvalidAccessKeyId");
    // Bob's secret key with an access key naming alice.
    S3AccessKeys.Pair bob = keys(secret, "bob", Duration.ofMinutes(10));
    S3AccessKeys.Pair alice = keys(secret, "alice", Duration.ofMinutes(10));
    assertReadRefused(
        new S3AccessKeys.Pair(alice.accessKey(), bob.secretKey()), "SignatureDoesNotMatch");
    // A key of another cluster's secret.
    ClusterSecret other =
        ClusterSecret.load(SecretFiles.write(dir.resolve("other"), SecretFiles.OTHER));
    assertReadRefused(keys(other, "alice", Duration.ofMinutes(10)), "SignatureDoesNotMatch");
  }

  private static S3AccessKeys.Pair keys(ClusterSecret of, String user, Duration ttl) {
    return S3AccessKeys.of(Tokens.issue(of, user, Role.USER, Instant.now().plus(ttl)));
  }

  /** A GET of a file open to all, signed with {@code keys}, is refused with {@code code}. */
  private static void assertReadRefused(S3AccessKeys.Pair keys, String code) {
    try (S3Client c = TestEndpoints.client(endpoint.port(), keys.accessKey(), keys.secretKey())) {
      assertS3Error(() -> c.getObjectAsBytes(g -> g.bucket("data").key("public.txt")), 403, code);
    }
  }

  @Test
  void theCredentialsFilesKeysStillActAsTheEndpointsOwnAccount() {
    String[] keys = endpoint.firstKeyPair();
    try (S3Client operator = TestEndpoints.client(endpoint.port(), keys[0], keys[1])) {
      assertThat(
              operator
                  .getObjectAsBytes(g -> g.bucket("data").key("private/secret.txt"))
                  .asUtf8String())
          .isEqualTo("root's only");
    }
  }

  private static void assertS3Error(Runnable call, int status, String code) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(status);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            });
  }
}
