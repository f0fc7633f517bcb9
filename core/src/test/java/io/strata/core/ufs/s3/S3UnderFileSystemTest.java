package io.strata.core.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.robothy.s3.rest.LocalS3;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** What only S3 does: its options, its errors, folder markers, uploads and throttling. */
class S3UnderFileSystemTest {
  private static LocalS3 server;
  private static S3Client admin;

  @BeforeAll
  static void start() throws Exception {
    server = S3UnderFileSystemContractTest.startLocalS3();
    admin = S3Clients.build(S3Settings.of(S3UnderFileSystemContractTest.options(server.getPort())));
    admin.createBucket(r -> r.bucket("bkt"));
  }

  @AfterAll
  static void stop() {
    admin.close();
    server.shutdown();
  }

  private static Map<String, String> options(int port, String... more) {
    Map<String, String> o = new HashMap<>(S3UnderFileSystemContractTest.options(port));
    for (int i = 0; i < more.length; i += 2) {
      o.put(more[i], more[i + 1]);
    }
    return o;
  }

  private static S3UnderFileSystem mount(String uri, Map<String, String> options) {
    return new S3UnderFileSystem(uri, S3Settings.of(options));
  }

  private static StrataException failure(Runnable r) {
    try {
      r.run();
    } catch (StrataException e) {
      return e;
    }
    throw new AssertionError("no failure");
  }

  @Test
  void options_areChecked_oneLineNamingTheOption_andKeysNeverShow() {
    assertThat(failure(() -> S3Settings.of(Map.of("s3.endpiont", "http://x:1"))).getMessage())
        .contains("unknown S3 mount option 's3.endpiont'")
        .contains(S3Settings.ENDPOINT);
    assertThat(failure(() -> S3Settings.of(Map.of(S3Settings.ACCESS_KEY, "a"))).getMessage())
        .contains(S3Settings.SECRET_KEY);
    assertThat(failure(() -> S3Settings.of(Map.of(S3Settings.PART_SIZE, "1MiB"))).code())
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(
            failure(() -> S3Settings.of(Map.of(S3Settings.REQUEST_TIMEOUT, "soon"))).getMessage())
        .contains(S3Settings.REQUEST_TIMEOUT);
    S3Settings s = S3Settings.of(options(1));
    assertThat(s.toString()).doesNotContain("test-secret").doesNotContain("test-access");
    assertThat(failure(() -> S3Location.parse("s3://")).code())
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(S3UnderFileSystem.normalize("s3://bucket/a/b/")).isEqualTo("s3://bucket/a/b");
  }

  @Test
  void aMissingBucket_orAStoreNobodyAnswers_failAtTheRoot_inOneLine() {
    try (S3UnderFileSystem ufs = mount("s3://no-such-bucket/x", options(server.getPort()))) {
      StrataException e = failure(() -> ufs.getStatus(StrataPath.ROOT));
      assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND);
      assertThat(e.getMessage()).contains("s3://no-such-bucket/x").doesNotContain("\n");
    }
    int closed;
    try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    try (S3UnderFileSystem ufs =
        mount("s3://bkt", options(closed, S3Settings.RETRY_BUDGET, "1s"))) {
      StrataException e = failure(() -> ufs.getStatus(StrataPath.ROOT));
      assertThat(e.code()).isIn(StatusCode.UNAVAILABLE, StatusCode.DEADLINE_EXCEEDED);
      assertThat(e.getMessage())
          .contains("s3://bkt at http://127.0.0.1:" + closed)
          .doesNotContain("test-secret")
          .doesNotContain("\n");
    }
  }

  @Test
  void anEmptyFolderMarker_isAFolder_listedOnce() {
    admin.putObject(r -> r.bucket("bkt").key("marked/empty/"), RequestBody.empty());
    admin.putObject(r -> r.bucket("bkt").key("marked/file"), RequestBody.fromString("x"));
    try (S3UnderFileSystem ufs = mount("s3://bkt/marked", options(server.getPort()));
        Stream<UfsStatus> children = ufs.list(StrataPath.ROOT)) {
      assertThat(children.map(c -> c.name() + (c.directory() ? "/" : "")).sorted().toList())
          .containsExactly("empty/", "file");
      assertThat(ufs.getStatus(StrataPath.of("/empty")).directory()).isTrue();
      try (Stream<UfsStatus> none = ufs.list(StrataPath.of("/empty"))) {
        assertThat(none.toList()).isEmpty();
      }
    }
  }

  @Test
  void anAbortedOrAbandonedUpload_leavesNoParts() throws Exception {
    byte[] sixMiB = new byte[6 << 20];
    try (S3UnderFileSystem ufs = mount("s3://bkt/uploads", options(server.getPort()))) {
      UfsOutputStream aborted = ufs.create(StrataPath.of("/a.bin"), CreateOptions.DEFAULT);
      aborted.write(sixMiB);
      assertThat(uploads()).as("a part went up").isNotEmpty();
      aborted.abort();
      assertThat(uploads()).isEmpty();

      UfsOutputStream abandoned = ufs.create(StrataPath.of("/b.bin"), CreateOptions.DEFAULT);
      abandoned.write(sixMiB);
      assertThat(uploads()).isNotEmpty();
      // Its writer died; the worker discards what it left when it starts again.
      ufs.discard(abandoned.token());
      assertThat(uploads()).isEmpty();
      assertThat(failure(() -> ufs.getStatus(StrataPath.of("/b.bin"))).code())
          .isEqualTo(StatusCode.NOT_FOUND);
    }
  }

  private static List<String> uploads() {
    return admin.listMultipartUploads(r -> r.bucket("bkt")).uploads().stream()
        .map(u -> u.key())
        .toList();
  }

  @Test
  void throttling_isRetried_andTheReadSucceeds() throws Exception {
    admin.putObject(
        r -> r.bucket("bkt").key("throttled/data"), RequestBody.fromString("served at last"));
    try (FaultyS3Proxy proxy = FaultyS3Proxy.throttling(server.getPort(), 3);
        S3UnderFileSystem ufs = mount("s3://bkt/throttled", options(proxy.port()));
        UfsReader reader = ufs.openReader(StrataPath.of("/data"))) {
      ByteBuffer b = ByteBuffer.allocate(64);
      int n = reader.readFully(0, b);
      assertThat(new String(b.array(), 0, n, StandardCharsets.UTF_8)).isEqualTo("served at last");
      assertThat(proxy.failed()).isEqualTo(3);
    }
  }

  @Test
  void wrongCredentials_failInOneLine_namingTheMount_notTheKeys() throws Exception {
    try (FaultyS3Proxy proxy = FaultyS3Proxy.denying(server.getPort());
        S3UnderFileSystem ufs = mount("s3://bkt/x", options(proxy.port()))) {
      StrataException e = failure(() -> ufs.getStatus(StrataPath.ROOT));
      assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED);
      assertThat(e.getMessage())
          .contains("s3://bkt/x", "403", "credentials")
          .doesNotContain("test-secret")
          .doesNotContain("\n");
      assertThat(proxy.failed()).as("403 is not retried").isEqualTo(1);
    }
  }

  @Test
  void modesAndOwners_cannotBeChanged_saysWhy() {
    admin.putObject(r -> r.bucket("bkt").key("attrs/f"), RequestBody.fromString("f"));
    try (S3UnderFileSystem ufs = mount("s3://bkt/attrs", options(server.getPort()))) {
      assertThatThrownBy(() -> ufs.setAttributes(StrataPath.of("/f"), 0600, "", ""))
          .isInstanceOf(StrataException.class)
          .hasMessageContaining("stores neither");
      ufs.setAttributes(StrataPath.of("/f"), -1, "", "");
    }
  }
}
