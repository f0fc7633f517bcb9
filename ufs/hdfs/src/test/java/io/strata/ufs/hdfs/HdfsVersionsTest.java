package io.strata.ufs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.path.StrataPath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs of a version read in order go on with one stream; counted on Hadoop's local file system (an
 * HDFS mount's reads are tested against a real HDFS in the integration tests).
 */
class HdfsVersionsTest {
  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  /** The local file system, counting the streams opened. */
  private static final class CountingFs extends FilterFileSystem {
    final AtomicInteger opened = new AtomicInteger();

    CountingFs() throws IOException {
      super(FileSystem.getLocal(new Configuration()).getRawFileSystem());
    }

    @Override
    public FSDataInputStream open(org.apache.hadoop.fs.Path f, int bufferSize) throws IOException {
      opened.incrementAndGet();
      return super.open(f, bufferSize);
    }
  }

  private static long readRun(HdfsReader r, long at, byte[] data) throws IOException {
    ByteBuffer[] pages = {ByteBuffer.allocateDirect(MIB), ByteBuffer.allocateDirect(MIB)};
    long n = r.readFully(at, pages);
    for (int k = 0; k < pages.length; k++) {
      byte[] got = new byte[pages[k].flip().remaining()];
      pages[k].get(got);
      int from = (int) at + k * MIB;
      assertThat(got).isEqualTo(Arrays.copyOfRange(data, from, from + got.length));
    }
    return n;
  }

  @Test
  void runsReadInOrder_goOnWithOneStream_andARunElsewhereOpensItsOwn() throws IOException {
    byte[] data = new byte[7 * MIB];
    new Random(3).nextBytes(data);
    Path file = dir.resolve("f");
    Files.write(file, data);
    org.apache.hadoop.fs.Path hadoopPath = new org.apache.hadoop.fs.Path(file.toUri());
    try (CountingFs fs = new CountingFs();
        HdfsVersions versions = new HdfsVersions(fs, false, "file:///")) {
      String version = versions.status("f", fs.getFileStatus(hadoopPath)).fingerprint();
      StrataPath path = StrataPath.of("/f");
      int shared;
      try (HdfsReader r = versions.open(path, hadoopPath, version)) {
        shared = fs.opened.get();
        assertThat(readRun(r, 0, data)).isEqualTo(2 * MIB);
      }
      assertThat(fs.opened.get()).as("the first run's stream").isEqualTo(shared + 1);
      for (long at : new long[] {2 * MIB, 4 * MIB}) {
        try (HdfsReader r = versions.open(path, hadoopPath, version)) {
          assertThat(readRun(r, at, data)).isEqualTo(2 * MIB);
        }
      }
      assertThat(fs.opened.get()).as("read on by the runs after it").isEqualTo(shared + 1);
      try (HdfsReader r = versions.open(path, hadoopPath, version)) {
        assertThat(readRun(r, MIB, data)).isEqualTo(2 * MIB);
        assertThat(fs.opened.get()).as("a run elsewhere opens its own").isEqualTo(shared + 2);
        assertThat(readRun(r, 6 * MIB, data))
            .as("on the stream of the run at 4 MiB, cut at the end of the file")
            .isEqualTo(MIB);
        assertThat(readRun(r, 3 * MIB, data))
            .as("on the stream of the run at 1 MiB")
            .isEqualTo(2 * MIB);
        assertThat(fs.opened.get()).isEqualTo(shared + 2);
        assertThat(readRun(r, 6 * MIB, data))
            .as("the stream that reached the end was closed, not parked")
            .isEqualTo(MIB);
      }
      assertThat(fs.opened.get()).isEqualTo(shared + 3);
    }
  }
}
