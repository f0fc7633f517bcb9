package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.ClusterReport;
import io.strata.core.proto.GetClusterReportRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import io.strata.ufs.s3.FaultyS3Proxy;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A bucket mounted on a running cluster of three masters and a worker: an S3-compatible server
 * (local-s3, in this JVM, on 127.0.0.1) holds the data; the shell mounts, lists, reads, invalidates
 * and unmounts; the mount outlives its leader.
 */
class S3MountTest {
  private static final String SECRET = "s3cr3t-never-shown";

  /** The workers' metadata TTL: what nobody announces shows within it (plus the client's 2 s). */
  private static final Duration TTL = Duration.ofSeconds(3);

  @TempDir static Path s3data;
  @TempDir Path mnt;
  private static LocalS3 s3;
  private static int s3port;
  private static S3Client store;
  private static ForkedCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    // Below the ephemeral range: the store is stopped and started again on this port, which an
    // outgoing connection could otherwise take meanwhile.
    s3port = io.strata.testkit.FreePorts.next();
    startS3();
    store =
        S3Client.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + s3port))
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AK", SECRET)))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .build();
    store.createBucket(r -> r.bucket("data"));
    cluster =
        ForkedCluster.builder()
            .masters(3)
            .workers(1)
            .property(WorkerKeys.METADATA_TTL, TTL.toSeconds() + "s")
            .start();
  }

  /** The S3 server on its port, over the objects it kept (again, after a stop). */
  private static void startS3() {
    s3 =
        LocalS3.builder()
            .port(s3port)
            .mode(LocalS3Mode.PERSISTENCE)
            .dataPath(s3data.toString())
            .build();
    s3.start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    store.close();
    s3.shutdown();
  }

  private static ShellRunner.Run strata(String... args) {
    return new ShellRunner(cluster::clientConf).run(args);
  }

  private static void put(String key, byte[] bytes) {
    store.putObject(r -> r.bucket("data").key(key), RequestBody.fromBytes(bytes));
  }

  private static String[] mountArgs(String path, String uri) {
    return mountArgs(path, uri, s3port);
  }

  private static String[] mountArgs(String path, String uri, int port, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "fs",
                "mount",
                path,
                uri,
                "--option",
                "s3.endpoint=http://127.0.0.1:" + port,
                "--option",
                "s3.path.style.access=true",
                "--option",
                "s3.access.key=AK",
                "--option",
                "s3.secret.key=" + SECRET));
    for (String m : more) {
      args.add("--option");
      args.add(m);
    }
    return args.toArray(String[]::new);
  }

  private static long pagesCached() {
    try (MasterClient master = new MasterClient(cluster.clientConf())) {
      ClusterReport r =
          master.call(
              "getClusterReport",
              s -> s.getClusterReport(GetClusterReportRequest.getDefaultInstance()));
      return r.getWorkersList().stream().mapToLong(w -> w.getUsage().getPagesCached()).sum();
    }
  }

  @Test
  void wrongCredentials_areRefusedAtMountTime_inOneLine() throws Exception {
    try (FaultyS3Proxy denying = FaultyS3Proxy.denying(s3port)) {
      ShellRunner.Run run = strata(mountArgs("/denied", "s3://data/ds", denying.port()));
      assertThat(run.code()).isNotZero();
      assertThat(run.err().strip())
          .contains("denied", "s3://data/ds")
          .doesNotContain(SECRET)
          .doesNotContain("\n");
    }
    assertThat(strata("fs", "mount").out()).doesNotContain("/denied");
  }

  /**
   * S3 keeps a file's mode and times in the object's metadata, which listings leave out: a client
   * that has listed the folder must still show a file's own attributes when it looks the file up (a
   * FUSE ls -l is a readdir, then a look-up of each name).
   */
  @Test
  void aFileLookedUpAfterItsFolderIsListed_showsItsOwnModeAndTime_andTreeCommandsUseIt()
      throws Exception {
    ShellRunner.Run mount = strata(mountArgs("/attrs", "s3://data/attrs"));
    assertThat(mount.code()).as(mount.err()).isZero();
    try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
      fs.mkdir("/attrs/d", false);
      put("attrs/d/f.txt", "attributes".getBytes(StandardCharsets.UTF_8));
      fs.setMode("/attrs/d/f.txt", 0600);
      fs.setModificationTime("/attrs/d/f.txt", 946_684_800_000L);
      assertThat(fs.listStatus("/attrs/d")).extracting(FileInfo::name).containsExactly("f.txt");
      FileInfo looked = fs.getStatus("/attrs/d/f.txt");
      assertThat(looked.mode() & 0777).isEqualTo(0600);
      assertThat(looked.mtimeMs()).isEqualTo(946_684_800_000L);

      // A symbolic chmod of the tree starts from each file's mode, not the listing's 0644.
      ShellRunner.Run chmod = strata("fs", "chmod", "-R", "u+x", "/attrs/d");
      assertThat(chmod.code()).as(chmod.err()).isZero();
      // A copy of the tree keeps each file's own mode.
      ShellRunner.Run cp = strata("fs", "cp", "-R", "/attrs/d", "/attrs/e");
      assertThat(cp.code()).as(cp.err()).isZero();
      try (FileSystem fresh = FileSystem.create(cluster.clientConf())) {
        assertThat(fresh.getStatus("/attrs/d/f.txt").mode() & 0777).isEqualTo(0700);
        assertThat(fresh.getStatus("/attrs/e/f.txt").mode() & 0777).isEqualTo(0700);
      }
    } finally {
      strata("fs", "unmount", "/attrs");
    }
  }

  @Test
  void theStoreStoppedMidRead_failsInOneLine_andTheReadAfterItsReturnWorks() throws Exception {
    byte[] data = new byte[2 << 20];
    new Random(5).nextBytes(data);
    put("st/c.bin", data);
    ShellRunner.Run mount =
        strata(
            mountArgs(
                "/stopped", "s3://data/st", s3port, "s3.retry.budget=3s", "s3.request.timeout=2s"));
    assertThat(mount.code()).as(mount.err()).isZero();
    try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
      assertThat(fs.getStatus("/stopped/c.bin").length()).isEqualTo(data.length);
      s3.shutdown();
      try {
        ShellRunner.Run cat =
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofMinutes(2), () -> strata("fs", "cat", "/stopped/c.bin"));
        assertThat(cat.code()).isNotZero();
        assertThat(cat.err().strip()).doesNotContain("\n").doesNotContain("\tat ");
      } finally {
        startS3();
      }
      try (FileInStream in = fs.open("/stopped/c.bin")) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
    } finally {
      strata("fs", "unmount", "/stopped");
    }
  }

  @Test
  void aBucketMounted_isReadInvalidatedAndUnmounted_andOutlivesItsLeader() throws Exception {
    byte[] big = new byte[3 << 20];
    new Random(3).nextBytes(big);
    put("ds/a.txt", "version one".getBytes(StandardCharsets.UTF_8));
    put("ds/sub/b.bin", big);

    ShellRunner.Run mount = strata(mountArgs("/s3", "s3://data/ds"));
    assertThat(mount.code()).as("fs mount: %s%s", mount.out(), mount.err()).isZero();
    ShellRunner.Run list = strata("fs", "mount");
    assertThat(list.out()).contains("/s3", "s3://data/ds", "<redacted>").doesNotContain(SECRET);
    assertThat(strata("fsadmin", "report").out()).contains("/s3").doesNotContain(SECRET);

    assertThat(strata("fs", "ls", "/s3").out()).contains("a.txt", "sub");
    assertThat(strata("fs", "cat", "/s3/a.txt").out()).isEqualTo("version one");
    try (FileSystem fs = FileSystem.create(cluster.clientConf());
        FileInStream in = fs.open("/s3/sub/b.bin")) {
      assertThat(in.readAllBytes()).isEqualTo(big);
    }

    // Replaced behind Strata's back: seen at once after invalidate.
    put("ds/a.txt", "version two, longer".getBytes(StandardCharsets.UTF_8));
    ShellRunner.Run invalidate = strata("fs", "invalidate", "-R", "/s3");
    assertThat(invalidate.code()).as(invalidate.err()).isZero();
    assertThat(strata("fs", "cat", "/s3/a.txt").out()).isEqualTo("version two, longer");
    // Replaced again, unannounced: seen once the metadata TTLs run out.
    put("ds/c.txt", "three".getBytes(StandardCharsets.UTF_8));
    assertThat(strata("fs", "cat", "/s3/c.txt").out()).isEqualTo("three");
    put("ds/c.txt", "three, replaced".getBytes(StandardCharsets.UTF_8));
    await()
        .atMost(TTL.plusSeconds(2 + 10))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> strata("fs", "cat", "/s3/c.txt").out().equals("three, replaced"));

    // Written through Strata: in the bucket, whole.
    Path local = s3data.resolveSibling("upload-" + System.nanoTime() + ".bin");
    Files.write(local, big);
    try {
      ShellRunner.Run copy = strata("fs", "copyFromLocal", local.toString(), "/s3/written.bin");
      assertThat(copy.code()).as(copy.err()).isZero();
    } finally {
      Files.delete(local);
    }
    assertThat(store.getObjectAsBytes(r -> r.bucket("data").key("ds/written.bin")).asByteArray())
        .isEqualTo(big);

    // A prefix of 1,000 objects warmed in advance: every byte cached once.
    int objects = 1000;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      java.util.List<java.util.concurrent.Future<?>> puts = new java.util.ArrayList<>();
      for (int i = 0; i < objects; i++) {
        String key = String.format("ds/many/%02d/o%04d", i % 10, i);
        puts.add(pool.submit(() -> put(key, key.getBytes(StandardCharsets.UTF_8))));
      }
      for (var f : puts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    ShellRunner.Run load = strata("fs", "distributedLoad", "/s3/many", "--json");
    assertThat(load.code()).as(load.err()).isZero();
    assertThat(load.out())
        .contains(
            "\"state\":\"succeeded\"",
            "\"walk\":\"flat\"",
            "\"files\":" + objects,
            "\"files_failed\":0");

    // Through FUSE too, where this host can mount.
    if (FuseHost.mountable()) {
      Map<String, String> conf = new java.util.HashMap<>(cluster.clientProperties());
      conf.put(FuseKeys.XATTR.name(), "true");
      ForkedProcess fuse =
          cluster.process("fuse", ForkedCluster.FUSE_MAIN, conf, List.of(mnt.toString(), "/"));
      cluster.restart(fuse);
      try {
        assertThat(Files.readString(mnt.resolve("s3/a.txt"))).isEqualTo("version two, longer");
        assertThat(Files.readAllBytes(mnt.resolve("s3/sub/b.bin"))).isEqualTo(big);
        assertThat(Files.readString(mnt.resolve("s3/many/07/o0007"))).isEqualTo("ds/many/07/o0007");
        ownersModesTimesAndLinks_inTheMetadataS3fsUses();
        aFileMadeThroughTheMount_keepsItsTimesOnceInTheBucket();
        filesOpenedForUpdate_throughALocalCopyPublishedWhole();
      } finally {
        fuse.stop();
      }
    }

    // Refused, each in one line, nothing changed.
    ShellRunner.Run nested = strata(mountArgs("/s3/inner", "s3://data/other"));
    assertThat(nested.code()).isNotZero();
    assertThat(nested.err()).contains("nest").doesNotContain("\tat ");
    Files.createDirectories(cluster.ufsRoot().resolve("taken"));
    ShellRunner.Run taken = strata(mountArgs("/taken", "s3://data/ds"));
    assertThat(taken.err()).contains("/taken exists");
    ShellRunner.Run noBucket = strata(mountArgs("/nobucket", "s3://no-such-bucket"));
    assertThat(noBucket.err()).contains("does not exist").doesNotContain(SECRET);
    assertThat(strata("fs", "unmount", "/").err()).contains("root");

    // The leader goes; the mount stays.
    int leader = cluster.awaitLeader(Duration.ofSeconds(30));
    cluster.master(leader).kill();
    cluster.awaitLeader(Duration.ofSeconds(30));
    assertThat(strata("fs", "mount").out()).contains("/s3");
    assertThat(strata("fs", "cat", "/s3/a.txt").out()).isEqualTo("version two, longer");
    cluster.restart(cluster.master(leader));

    // Unmounted: the worker drops the mount's pages; the path is the root mount's again.
    await().atMost(Duration.ofSeconds(20)).until(() -> pagesCached() > 0);
    assertThat(strata("fs", "unmount", "/s3").code()).isZero();
    assertThat(strata("fs", "mount").out()).doesNotContain("/s3");
    await().atMost(Duration.ofSeconds(20)).until(() -> pagesCached() == 0);
    assertThat(strata("fs", "ls", "/s3").code()).isNotZero();
  }

  /**
   * Issue 24, item 2: what the mount shows of an object written by s3fs, and what it writes for
   * s3fs (and rclone) to read: x-amz-meta-mode, -uid, -gid, -mtime; a link as s3fs keeps one.
   */
  private void ownersModesTimesAndLinks_inTheMetadataS3fsUses() throws Exception {
    store.putObject(
        r ->
            r.bucket("data")
                .key("ds/s3fs.txt")
                .metadata(
                    Map.of("mode", "33256", "uid", "1234", "gid", "2345", "mtime", "1600000000")),
        RequestBody.fromString("by s3fs"));
    Path s3fs = mnt.resolve("s3/s3fs.txt");
    assertThat(Files.getAttribute(s3fs, "unix:mode")).isEqualTo(0100750);
    assertThat(Files.getAttribute(s3fs, "unix:uid")).isEqualTo(1234);
    assertThat(Files.getAttribute(s3fs, "unix:gid")).isEqualTo(2345);
    assertThat(Files.getLastModifiedTime(s3fs).toMillis()).isEqualTo(1_600_000_000_000L);
    assertThat(Files.readString(s3fs)).isEqualTo("by s3fs");

    Path made = mnt.resolve("s3/made.txt");
    Files.writeString(made, "made here");
    Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rw-r-----"));
    Files.setAttribute(made, "unix:uid", 4321);
    Files.setLastModifiedTime(made, FileTime.fromMillis(1_500_000_000_000L));
    Map<String, String> m = store.headObject(r -> r.bucket("data").key("ds/made.txt")).metadata();
    assertThat(m)
        .containsEntry("mode", String.valueOf(0100640))
        .containsEntry("uid", "4321")
        .containsEntry("mtime", "1500000000");
    assertThat(Files.getAttribute(made, "unix:mode")).isEqualTo(0100640);
    assertThat(Files.readString(made)).isEqualTo("made here");

    Path link = mnt.resolve("s3/made.link");
    Files.createSymbolicLink(link, Path.of("made.txt"));
    assertThat(store.headObject(r -> r.bucket("data").key("ds/made.link")).metadata())
        .containsEntry("mode", String.valueOf(0120777));
    assertThat(store.getObjectAsBytes(r -> r.bucket("data").key("ds/made.link")).asUtf8String())
        .isEqualTo("made.txt");
    assertThat(Files.readSymbolicLink(link)).isEqualTo(Path.of("made.txt"));
    assertThat(Files.readString(link)).isEqualTo("made here");

    // Extended attributes in s3fs's header (user.a = "hello", user.b = ""), read and written.
    store.putObject(
        r ->
            r.bucket("data")
                .key("ds/tagged.txt")
                .metadata(
                    Map.of(
                        "xattr", "%7B%22user.a%22%3A%22aGVsbG8%3D%22%2C%22user.b%22%3A%22%22%7D")),
        RequestBody.fromString("tagged"));
    UserDefinedFileAttributeView attrs =
        Files.getFileAttributeView(
            mnt.resolve("s3/tagged.txt"), UserDefinedFileAttributeView.class);
    assertThat(attrs.list()).containsExactlyInAnyOrder("a", "b");
    ByteBuffer hello = ByteBuffer.allocate(attrs.size("a"));
    attrs.read("a", hello);
    assertThat(new String(hello.array(), StandardCharsets.UTF_8)).isEqualTo("hello");
    attrs.delete("b");
    attrs.write("c", ByteBuffer.wrap("by strata".getBytes(StandardCharsets.UTF_8)));
    assertThat(store.headObject(r -> r.bucket("data").key("ds/tagged.txt")).metadata())
        .containsEntry(
            "xattr", "%7B%22user.a%22%3A%22aGVsbG8%3D%22%2C%22user.c%22%3A%22Ynkgc3RyYXRh%22%7D");
    assertThat(Files.readString(mnt.resolve("s3/tagged.txt"))).isEqualTo("tagged");

    Files.createDirectory(mnt.resolve("s3/folder"));
    assertThat(store.headObject(r -> r.bucket("data").key("ds/folder/")).metadata())
        .containsEntry("uid", "0")
        .containsKey("mode");
    assertThat(Files.isDirectory(mnt.resolve("s3/folder"))).isTrue();
  }

  /**
   * A file made and closed shows, once the kernel asks again, the times it showed while being made
   * (pjdfstest compares a ctime taken right after a creat(2) with one taken a second later, in
   * unlink/00.t and elsewhere). The kernel keeps the attributes getattr gave at the create.
   */
  private void aFileMadeThroughTheMount_keepsItsTimesOnceInTheBucket() throws Exception {
    Path made = mnt.resolve("s3/made-empty.txt");
    Files.newByteChannel(made, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
    Object ctime = Files.getAttribute(made, "unix:ctime");
    FileTime mtime = Files.getLastModifiedTime(made);
    // Past the kernel's attribute timeout (1 s), and the client's metadata TTL (2 s).
    Thread.sleep(2_500);
    assertThat(Files.getAttribute(made, "unix:ctime")).isEqualTo(ctime);
    assertThat(Files.getLastModifiedTime(made)).isEqualTo(mtime);
  }

  /**
   * Issue 24, item 4, on S3: random writes checked against a model, and SQLite, through a local
   * copy that replaces the object whole at each close and fsync.
   */
  private void filesOpenedForUpdate_throughALocalCopyPublishedWhole() throws Exception {
    assertThat(RandomWrites.run(mnt.resolve("s3/random.bin"), 11, 200)).isGreaterThan(40);
    assertThat(store.getObjectAsBytes(r -> r.bucket("data").key("ds/random.bin")).asByteArray())
        .isEqualTo(Files.readAllBytes(mnt.resolve("s3/random.bin")));
    if (FuseHost.onPath("sqlite3")) {
      Path script = s3data.resolveSibling("changes-" + System.nanoTime() + ".sql");
      try {
        long sum = FuseUpdatesTest.writeScript(script, new Random(22), 100);
        Path db = mnt.resolve("s3/t.db");
        assertThat(FuseUpdatesTest.sqlite(db, ".read " + script)).isEmpty();
        assertThat(FuseUpdatesTest.sqlite(db, "PRAGMA integrity_check;")).isEqualTo("ok\n");
        assertThat(FuseUpdatesTest.sqlite(db, "SELECT sum(v) FROM t;")).isEqualTo(sum + "\n");
      } finally {
        Files.deleteIfExists(script);
      }
    } else {
      System.out.println("S3MountTest: SQLite not checked (apt-get install sqlite3)");
    }
  }
}
