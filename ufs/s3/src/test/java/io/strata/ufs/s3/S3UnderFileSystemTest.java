package io.strata.ufs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;

/** What only S3 does: its options, its errors, folder markers, uploads and throttling. */
class S3UnderFileSystemTest {
  @RegisterExtension static final LocalS3Store store = LocalS3Store.withBuckets("bkt");

  private static Map<String, String> options(int port, String... more) {
    Map<String, String> o = new HashMap<>(LocalS3Store.options(port));
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
    try (S3UnderFileSystem ufs = mount("s3://no-such-bucket/x", options(store.port()))) {
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
    store.admin().putObject(r -> r.bucket("bkt").key("marked/empty/"), RequestBody.empty());
    store.admin().putObject(r -> r.bucket("bkt").key("marked/file"), RequestBody.fromString("x"));
    try (S3UnderFileSystem ufs = mount("s3://bkt/marked", options(store.port()));
        Stream<UfsStatus> children = ufs.list(StrataPath.ROOT)) {
      assertThat(children.map(c -> c.name() + (c.directory() ? "/" : "")).sorted().toList())
          .containsExactly("empty/", "file");
      assertThat(ufs.getStatus(StrataPath.of("/empty")).directory()).isTrue();
      try (Stream<UfsStatus> none = ufs.list(StrataPath.of("/empty"))) {
        assertThat(none.toList()).isEmpty();
      }
    }
  }

  /**
   * Whoever writes to the bucket may make any key: one with an empty, "." or ".." component has no
   * path under the mount, and is left out rather than failing its folder's listing or showing as
   * another file (or, with "..", outside the mount).
   */
  @Test
  void keysThatNameNoPath_areLeftOut_andTheirFoldersStillList() {
    for (String key :
        List.of("odd/ok", "odd/a//b", "odd/../up", "odd/./here", "odd/x/../y", "odd/x/fine")) {
      store.admin().putObject(r -> r.bucket("bkt").key(key), RequestBody.fromString(key));
    }
    try (S3UnderFileSystem ufs = mount("s3://bkt/odd", options(store.port()))) {
      try (Stream<UfsStatus> top = ufs.list(StrataPath.ROOT)) {
        assertThat(top.map(c -> c.name() + (c.directory() ? "/" : "")).sorted().toList())
            .containsExactly("a/", "ok", "x/");
      }
      for (String folder : List.of("/a", "/x")) {
        try (Stream<UfsStatus> below = ufs.list(StrataPath.of(folder))) {
          assertThat(below.map(UfsStatus::name).toList())
              .as(folder)
              .containsExactlyElementsOf(folder.equals("/a") ? List.of() : List.of("fine"));
        }
      }
      assertThat(ufs.listFiles(StrataPath.ROOT, "", 100).stream().map(UfsStatus::name).toList())
          .containsExactly("ok", "x/fine");
    }
  }

  @Test
  void anAbortedOrAbandonedUpload_leavesNoParts() throws Exception {
    byte[] sixMiB = new byte[6 << 20];
    try (S3UnderFileSystem ufs = mount("s3://bkt/uploads", options(store.port()))) {
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
    return store.admin().listMultipartUploads(r -> r.bucket("bkt")).uploads().stream()
        .map(u -> u.key())
        .toList();
  }

  @Test
  void throttling_isRetried_andTheReadSucceeds() throws Exception {
    store
        .admin()
        .putObject(
            r -> r.bucket("bkt").key("throttled/data"), RequestBody.fromString("served at last"));
    try (FaultyS3Proxy proxy = FaultyS3Proxy.throttling(store.port(), 3);
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
    try (FaultyS3Proxy proxy = FaultyS3Proxy.denying(store.port());
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
  void anObjectWrittenByS3fs_showsItsModeOwnersAndTimes_andRclonesTimeIsSeenToo() {
    store
        .admin()
        .putObject(
            r ->
                r.bucket("bkt")
                    .key("meta/s3fs.txt")
                    .metadata(
                        Map.of(
                            "mode", "33256", "uid", "1234", "gid", "2345", "mtime", "1600000000")),
            RequestBody.fromString("by s3fs"));
    store
        .admin()
        .putObject(
            r ->
                r.bucket("bkt")
                    .key("meta/rclone.txt")
                    .metadata(Map.of("mtime", "1600000000.123456789")),
            RequestBody.fromString("by rclone"));
    store
        .admin()
        .putObject(
            r -> r.bucket("bkt").key("meta/odd.txt").metadata(Map.of("mode", "rw-r--r--")),
            RequestBody.fromString("by someone else"));
    try (S3UnderFileSystem ufs = mount("s3://bkt/meta", options(store.port()))) {
      UfsStatus s3fs = ufs.getStatus(StrataPath.of("/s3fs.txt"));
      assertThat(s3fs.posix()).isNotNull();
      assertThat(s3fs.posix().getType()).isEqualTo(FileType.REGULAR);
      assertThat(s3fs.posix().getMode()).isEqualTo(0750);
      assertThat(s3fs.posix().getUid()).isEqualTo(1234);
      assertThat(s3fs.posix().getGid()).isEqualTo(2345);
      assertThat(s3fs.posix().getMtimeNs()).isEqualTo(1_600_000_000_000_000_000L);
      assertThat(s3fs.mtimeMs()).isEqualTo(1_600_000_000_000L);
      assertThat(s3fs.length()).isEqualTo(7);

      UfsStatus rclone = ufs.getStatus(StrataPath.of("/rclone.txt"));
      assertThat(rclone.posix()).isNull();
      assertThat(rclone.mtimeMs()).isEqualTo(1_600_000_000_123L);

      UfsStatus odd = ufs.getStatus(StrataPath.of("/odd.txt"));
      assertThat(odd.posix()).as("a mode that is not s3fs's is ignored").isNull();
      assertThat(odd.mode()).isEqualTo(0644);
    }
  }

  @Test
  void modesOwnersTimesAndLinks_areKeptAsS3fsKeepsThem_andTheBytesStay() throws Exception {
    try (S3UnderFileSystem ufs = mount("s3://bkt/kept", options(store.port()))) {
      StrataPath f = StrataPath.of("/f.txt");
      try (UfsOutputStream out = ufs.create(f, new CreateOptions(false, true, 0640, true, 7, 8))) {
        out.write("kept bytes".getBytes(StandardCharsets.UTF_8));
      }
      Map<String, String> made = metadata("kept/f.txt");
      assertThat(made).containsEntry("mode", "33184").containsEntry("uid", "7");
      assertThat(made).containsEntry("gid", "8").containsKey("mtime");

      // A writer that says when it began the file (a mount showed that time meanwhile) gets it.
      StrataPath begun = StrataPath.of("/begun.txt");
      ufs.create(begun, new CreateOptions(false, true, 0600, true, 7, 8, false, 1_600_000_000_170L))
          .close();
      assertThat(metadata("kept/begun.txt"))
          .containsEntry("mtime", "1600000000.170000000")
          .containsEntry("ctime", "1600000000.170000000");
      assertThat(ufs.getStatus(begun).posix().getCtimeNs()).isEqualTo(1_600_000_000_170_000_000L);

      ufs.setAttributes(f, 04755, "", "");
      assertThat(metadata("kept/f.txt")).containsEntry("mode", String.valueOf(0104755));
      // A new owner clears setuid, as Linux's chown does.
      ufs.setOwnerIds(f, 100, -1);
      assertThat(metadata("kept/f.txt"))
          .containsEntry("uid", "100")
          .containsEntry("gid", "8")
          .containsEntry("mode", String.valueOf(0100755));
      ufs.setTimes(f, UnderFileSystem.TIME_OMIT, 1_500_000_000_250_000_000L);
      assertThat(metadata("kept/f.txt")).containsEntry("mtime", "1500000000.250000000");
      UfsStatus s = ufs.getStatus(f);
      assertThat(s.posix().getMtimeNs()).isEqualTo(1_500_000_000_250_000_000L);
      assertThat(s.posix().getMode()).isEqualTo(0755);
      assertThat(
              store.admin().getObjectAsBytes(r -> r.bucket("bkt").key("kept/f.txt")).asUtf8String())
          .isEqualTo("kept bytes");

      ufs.createSymlink(StrataPath.of("/link"), "../some/target");
      assertThat(metadata("kept/link")).containsEntry("mode", String.valueOf(0120777));
      assertThat(
              store.admin().getObjectAsBytes(r -> r.bucket("bkt").key("kept/link")).asUtf8String())
          .isEqualTo("../some/target");
      UfsStatus link = ufs.getStatus(StrataPath.of("/link"));
      assertThat(link.posix().getType()).isEqualTo(FileType.SYMLINK);
      assertThat(link.posix().getSymlinkTarget()).isEqualTo("../some/target");
      assertThat(failure(() -> ufs.createSymlink(StrataPath.of("/link"), "x")).code())
          .isEqualTo(StatusCode.ALREADY_EXISTS);

      ufs.createSpecial(StrataPath.of("/fifo"), FileType.FIFO, 0640, 0);
      ufs.createSpecial(StrataPath.of("/dev"), FileType.CHAR_DEVICE, 0600, 0x0102);
      assertThat(metadata("kept/fifo")).containsEntry("mode", String.valueOf(0010640));
      assertThat(ufs.getStatus(StrataPath.of("/fifo")).posix().getType()).isEqualTo(FileType.FIFO);
      assertThat(ufs.getStatus(StrataPath.of("/dev")).posix().getRdev()).isEqualTo(0x0102);

      // A folder keeps its attributes in its marker, made for it if S3 only implied it.
      store
          .admin()
          .putObject(r -> r.bucket("bkt").key("kept/implied/x"), RequestBody.fromString("x"));
      ufs.setOwnerIds(StrataPath.of("/implied"), 5, 6);
      assertThat(metadata("kept/implied/")).containsEntry("uid", "5").containsEntry("gid", "6");
      ufs.setAttributes(StrataPath.of("/implied"), 02775, "", "");
      UfsStatus folder = ufs.getStatus(StrataPath.of("/implied"));
      assertThat(folder.directory()).isTrue();
      assertThat(folder.posix().getType()).isEqualTo(FileType.DIRECTORY);
      assertThat(folder.posix().getMode()).isEqualTo(02775);
      assertThat(folder.posix().getUid()).isEqualTo(5);

      // Names are not numbers: refused in one line, saying what S3 keeps.
      assertThat(failure(() -> ufs.setAttributes(f, -1, "alice", "")).getMessage())
          .contains("numeric owners only");
      assertThat(failure(() -> ufs.setOwnerIds(StrataPath.of("/none"), 1, 1)).code())
          .isEqualTo(StatusCode.NOT_FOUND);
    }
  }

  @Test
  void aRenamedObject_keepsItsAttributes() throws Exception {
    try (S3UnderFileSystem ufs = mount("s3://bkt/moved", options(store.port()))) {
      try (UfsOutputStream out =
          ufs.create(StrataPath.of("/a"), new CreateOptions(false, true, 0600, true, 3, 4))) {
        out.write(1);
      }
      ufs.rename(StrataPath.of("/a"), StrataPath.of("/b"));
      UfsStatus b = ufs.getStatus(StrataPath.of("/b"));
      assertThat(b.posix().getMode()).isEqualTo(0600);
      assertThat(b.posix().getUid()).isEqualTo(3);
    }
  }

  @Test
  void aPlainWrite_addsNoMetadata() throws Exception {
    try (S3UnderFileSystem ufs = mount("s3://bkt/plain", options(store.port()))) {
      try (UfsOutputStream out = ufs.create(StrataPath.of("/p"), CreateOptions.DEFAULT)) {
        out.write(1);
      }
      assertThat(metadata("plain/p")).isEmpty();
      assertThat(ufs.getStatus(StrataPath.of("/p")).posix()).isNull();
    }
  }

  private static Map<String, String> metadata(String key) {
    return store.admin().headObject(r -> r.bucket("bkt").key(key)).metadata();
  }
}
