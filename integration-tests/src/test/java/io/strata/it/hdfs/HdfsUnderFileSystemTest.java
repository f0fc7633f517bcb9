package io.strata.it.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.testkit.MiniHdfs;
import io.strata.ufs.hdfs.HdfsSettings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is particular to HDFS: versions by inode, errors in one line, options, temporary files. */
class HdfsUnderFileSystemTest {
  @TempDir static Path dir;
  private static MiniHdfs hdfs;
  private static FileSystem client;

  @BeforeAll
  static void startHdfs() throws Exception {
    hdfs = new MiniHdfs(dir);
    client = hdfs.client();
  }

  @AfterAll
  static void stopHdfs() {
    hdfs.close();
  }

  private static StrataPath p(String s) {
    return StrataPath.of(s);
  }

  private static void put(String path, String text, boolean append) throws Exception {
    org.apache.hadoop.fs.Path h = new org.apache.hadoop.fs.Path(path);
    try (FSDataOutputStream out = append ? client.append(h) : client.create(h, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static UnderFileSystem mount(String folder, Map<String, String> options)
      throws Exception {
    client.mkdirs(new org.apache.hadoop.fs.Path(folder));
    return UfsFactory.open(hdfs.uri() + folder, options, Duration.ofHours(1));
  }

  @Test
  void aVersion_isItsInode_lengthAndTime_andAStaleOneNeverReadsNewBytes() throws Exception {
    try (UnderFileSystem ufs = mount("/v", Map.of())) {
      put("/v/f", "one", false);
      String first = ufs.getStatus(p("/f")).fingerprint();
      assertThat(first).startsWith("hdfs:");
      put("/v/f", "+two", true);
      String appended = ufs.getStatus(p("/f")).fingerprint();
      assertThat(appended).isNotEqualTo(first);
      put("/v/f", "one+two", false);
      assertThat(ufs.getStatus(p("/f")).fingerprint())
          .as("the same bytes in a new file are a new version")
          .isNotEqualTo(appended);
      assertThatThrownBy(() -> ufs.openVersion(p("/f"), appended))
          .isInstanceOf(StrataException.class)
          .extracting(e -> ((StrataException) e).code())
          .isEqualTo(StatusCode.FAILED_PRECONDITION);
      assertThatThrownBy(() -> ufs.openVersion(p("/f"), "s3:x:1:2"))
          .extracting(e -> ((StrataException) e).code())
          .isEqualTo(StatusCode.FAILED_PRECONDITION);
    }
  }

  @Test
  void pagesOfOneVersion_shareOneStream_andReadInParallel() throws Exception {
    try (UnderFileSystem ufs = mount("/par", Map.of())) {
      byte[] data = new byte[4 << 20];
      new java.util.Random(1).nextBytes(data);
      try (UfsOutputStream out = ufs.create(p("/big"), new CreateOptions(false, true, 0))) {
        out.write(data);
      }
      String version = ufs.getStatus(p("/big")).fingerprint();
      try (Stream<Integer> pages = Stream.of(0, 1, 2, 3).parallel()) {
        pages.forEach(
            i -> {
              try (UfsReader r = ufs.openVersion(p("/big"), version)) {
                ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                assertThat(r.readFully((long) i << 20, b)).isEqualTo(1 << 20);
                byte[] got = new byte[1 << 20];
                b.flip().get(got);
                assertThat(got)
                    .isEqualTo(java.util.Arrays.copyOfRange(data, i << 20, (i + 1) << 20));
                assertThat(r.currentFingerprint()).isEqualTo(version);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
      }
    }
  }

  private static long readRun(UnderFileSystem ufs, String version, long at, byte[] data)
      throws Exception {
    try (UfsReader r = ufs.openVersion(p("/runs"), version)) {
      ByteBuffer[] pages = {ByteBuffer.allocateDirect(1 << 20), ByteBuffer.allocateDirect(1 << 20)};
      long n = r.readFully(at, pages);
      for (int k = 0; k < pages.length; k++) {
        byte[] got = new byte[pages[k].flip().remaining()];
        pages[k].get(got);
        int from = (int) at + (k << 20);
        assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(data, from, from + got.length));
      }
      assertThat(r.currentFingerprint()).isEqualTo(version);
      return n;
    }
  }

  @Test
  void runsReadInOrder_andRunsElsewhere_readTheirOwnBytes() throws Exception {
    try (UnderFileSystem ufs = mount("/seq", Map.of())) {
      assertThat(ufs.continuesRuns()).isTrue();
      byte[] data = new byte[8 << 20];
      new java.util.Random(2).nextBytes(data);
      try (UfsOutputStream out = ufs.create(p("/runs"), new CreateOptions(false, true, 0))) {
        out.write(data);
      }
      String version = ufs.getStatus(p("/runs")).fingerprint();
      // Each run on the DataNode stream the one before left (see HdfsVersionsTest), or its own.
      for (long at : new long[] {0, 2 << 20, 4 << 20, 1 << 20, 3 << 20, 6 << 20}) {
        assertThat(readRun(ufs, version, at, data)).isEqualTo(2 << 20);
      }
    }
  }

  @Test
  void aWritersTemporaryFile_isHidden_andDiscardedByItsTokenOnly() throws Exception {
    try (UnderFileSystem ufs = mount("/tmpfiles", Map.of())) {
      UfsOutputStream out = ufs.create(p("/w.txt"), new CreateOptions(false, true, 0));
      out.write("half".getBytes(StandardCharsets.UTF_8));
      assertThat(client.listStatus(new org.apache.hadoop.fs.Path("/tmpfiles"))).hasSize(1);
      try (Stream<?> listed = ufs.list(StrataPath.ROOT)) {
        assertThat(listed).isEmpty();
      }
      put("/tmpfiles/keep.txt", "kept", false);
      ufs.discard("/tmpfiles/keep.txt");
      ufs.discard("/elsewhere/.strata-x.tmp");
      assertThat(client.exists(new org.apache.hadoop.fs.Path("/tmpfiles/keep.txt"))).isTrue();
      ufs.discard(out.token());
      assertThat(client.listStatus(new org.apache.hadoop.fs.Path("/tmpfiles"))).hasSize(1);
    }
  }

  @Test
  void theChecksumOption_addsTheFilesChecksumToItsVersion() throws Exception {
    try (UnderFileSystem plain = mount("/sum", Map.of());
        UnderFileSystem summed = mount("/sum", Map.of(HdfsSettings.CHECKSUM, "true"))) {
      put("/sum/f", "checked", false);
      String withSum = summed.getStatus(p("/f")).fingerprint();
      assertThat(withSum).startsWith(plain.getStatus(p("/f")).fingerprint() + ":");
      try (Stream<io.strata.core.ufs.UfsStatus> listed = summed.list(StrataPath.ROOT)) {
        assertThat(listed.findFirst().orElseThrow().fingerprint()).isEqualTo(withSum);
      }
    }
  }

  @Test
  void badOptionsAndUnreachableNameNodes_failInOneLine() throws Exception {
    assertThatThrownBy(() -> mount("/o", Map.of("nonsense", "1")))
        .hasMessageContaining("unknown HDFS mount option 'nonsense'");
    assertThatThrownBy(() -> mount("/o", Map.of(HdfsSettings.CHECKSUM, "maybe")))
        .hasMessageContaining(HdfsSettings.CHECKSUM);
    assertThatThrownBy(
            () -> mount("/o", Map.of(HdfsSettings.CONF_DIR, dir.resolve("none").toString())))
        .hasMessageContaining("is not a folder");
    try (UnderFileSystem ufs = mount("/o", Map.of("dfs.client.read.shortcircuit", "false"))) {
      assertThatThrownBy(() -> ufs.getStatus(p("/missing")))
          .extracting(e -> ((StrataException) e).code())
          .isEqualTo(StatusCode.NOT_FOUND);
    }
    long start = System.nanoTime();
    try (UnderFileSystem away =
        UfsFactory.open("hdfs://127.0.0.1:1/x", Map.of(), Duration.ofHours(1))) {
      assertThatThrownBy(() -> away.getStatus(StrataPath.ROOT))
          .isInstanceOf(StrataException.class)
          .satisfies(
              e -> {
                assertThat(((StrataException) e).code()).isEqualTo(StatusCode.UNAVAILABLE);
                assertThat(e.getMessage())
                    .contains("cannot reach the NameNode of hdfs://127.0.0.1:1/x")
                    .doesNotContain("\n");
              });
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    assertThatThrownBy(() -> UfsFactory.open("gopher://x/y", Map.of(), Duration.ofHours(1)))
        .hasMessageContaining("unsupported under-storage");
  }

  @Test
  void uris_areNormalized() {
    assertThat(UfsFactory.normalize("hdfs://nn:8020/data/")).isEqualTo("hdfs://nn:8020/data");
    assertThat(UfsFactory.normalize("hdfs://nn:8020/a//b/../c")).isEqualTo("hdfs://nn:8020/a/c");
    assertThat(UfsFactory.normalize("hdfs://nn:8020/")).isEqualTo("hdfs://nn:8020");
  }
}
