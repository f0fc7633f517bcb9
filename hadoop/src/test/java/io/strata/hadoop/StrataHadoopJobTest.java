package io.strata.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.strata.testkit.MiniCluster;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;
import org.junit.jupiter.api.Test;

/**
 * Shaped like a job: many tasks, each opening files through {@code strata://} and reading them with
 * random seeks, positioned reads and whole passes, every byte compared with the under-storage's.
 */
class StrataHadoopJobTest {
  private static final int FILES = 24;
  private static final int TASKS = 8;

  @Test
  void manyTasksReadingManyFilesWithRandomSeeks_getTheStoresBytes() throws Exception {
    Configuration conf = new Configuration();
    MiniCluster cluster = StrataContract.sharedCluster(conf);
    Path folder = cluster.ufsRoot().resolve("job");
    Files.createDirectories(folder);
    Random random = new Random(26);
    List<byte[]> contents = new ArrayList<>();
    for (int i = 0; i < FILES; i++) {
      byte[] data = new byte[random.nextInt(3 << 20) + (i == 0 ? 0 : 1)];
      random.nextBytes(data);
      Files.write(folder.resolve("part-" + i), data);
      contents.add(data);
    }
    FileSystem fs = FileSystem.get(StrataContract.sharedUri(conf), conf);
    org.apache.hadoop.fs.Path job = new org.apache.hadoop.fs.Path("/job");
    FileStatus[] listed = fs.listStatus(job);
    assertEquals(FILES, listed.length);
    for (FileStatus f : listed) {
      BlockLocation[] where = fs.getFileBlockLocations(f, 0, f.getLen());
      if (f.getLen() > 0) {
        assertEquals(1, where.length);
        assertTrue(where[0].getHosts()[0].startsWith("127.0.0.1"), where[0].toString());
      }
    }

    ExecutorService tasks = Executors.newFixedThreadPool(TASKS);
    try {
      List<Future<Long>> done = new ArrayList<>();
      for (int t = 0; t < TASKS; t++) {
        long seed = t;
        done.add(tasks.submit(() -> readRandomly(fs, job, contents, new Random(seed))));
      }
      long bytes = 0;
      for (Future<Long> f : done) {
        bytes += f.get();
      }
      assertTrue(bytes > 0);
    } finally {
      tasks.shutdown();
    }
  }

  @Test
  void aStreamsIoStatistics_countItsBytesAndOperations() throws Exception {
    Configuration conf = new Configuration();
    MiniCluster cluster = StrataContract.sharedCluster(conf);
    Path file = cluster.ufsRoot().resolve("stats.bin");
    byte[] data = new byte[100_000];
    new Random(3).nextBytes(data);
    Files.write(file, data);
    FileSystem fs = FileSystem.get(StrataContract.sharedUri(conf), conf);
    FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/stats.bin"));
    assertTrue(in.hasCapability(StreamCapabilities.IOSTATISTICS));
    byte[] buf = new byte[1000];
    in.readFully(buf);
    in.seek(50_000);
    assertEquals(1000, in.read(buf, 0, 1000));
    ByteBuffer direct = ByteBuffer.allocateDirect(500);
    in.readFully(90_000, direct);
    in.close();
    IOStatistics stats = IOStatisticsSupport.retrieveIOStatistics(in);
    Map<String, Long> counters = stats.counters();
    assertEquals(2500L, counters.get(StreamStatisticNames.STREAM_READ_BYTES));
    assertEquals(1L, counters.get(StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS));
    assertEquals(1L, counters.get(StreamStatisticNames.STREAM_READ_CLOSE_OPERATIONS));
    assertTrue(counters.get(StreamStatisticNames.STREAM_READ_OPERATIONS) >= 3, stats.toString());
  }

  @Test
  void aLargeFolder_isListedAPageAtATime_inOrder_withoutDuplicates() throws Exception {
    Configuration conf = new Configuration();
    MiniCluster cluster = StrataContract.sharedCluster(conf);
    Path folder = cluster.ufsRoot().resolve("paged");
    Files.createDirectories(folder);
    int n = StrataHadoopFileSystem.LIST_PAGE * 2 + 500;
    for (int i = 0; i < n; i++) {
      Files.write(folder.resolve(String.format("e%05d", i)), new byte[] {(byte) i});
    }
    FileSystem fs = FileSystem.get(StrataContract.sharedUri(conf), conf);
    org.apache.hadoop.fs.RemoteIterator<FileStatus> it =
        fs.listStatusIterator(new org.apache.hadoop.fs.Path("/paged"));
    List<String> names = new ArrayList<>();
    while (it.hasNext()) {
      FileStatus s = it.next();
      assertEquals(1, s.getLen());
      names.add(s.getPath().getName());
    }
    assertEquals(n, names.size());
    for (int i = 0; i < n; i++) {
      assertEquals(String.format("e%05d", i), names.get(i));
    }
  }

  private static long readRandomly(
      FileSystem fs, org.apache.hadoop.fs.Path job, List<byte[]> contents, Random random)
      throws Exception {
    long read = 0;
    for (int round = 0; round < 40; round++) {
      int i = random.nextInt(FILES);
      byte[] expected = contents.get(i);
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(job, "part-" + i))) {
        for (int step = 0; step < 6; step++) {
          int at = expected.length == 0 ? 0 : random.nextInt(expected.length);
          int n = Math.min(random.nextInt(300_000) + 1, expected.length - at);
          byte[] got = new byte[n];
          switch (step % 3) {
            case 0 -> {
              in.seek(at);
              in.readFully(got);
              assertEquals(at + n, in.getPos());
            }
            case 1 -> {
              long pos = in.getPos();
              in.readFully(at, got);
              assertEquals(pos, in.getPos(), "a positioned read leaves the position alone");
            }
            default -> {
              ByteBuffer direct = ByteBuffer.allocateDirect(n);
              in.readFully(at, direct);
              direct.flip().get(got);
            }
          }
          assertArrayEquals(Arrays.copyOfRange(expected, at, at + n), got);
          read += n;
        }
        if (round % 10 == 0) {
          in.seek(0);
          assertArrayEquals(expected, in.readAllBytes());
          assertEquals(-1, in.read());
          read += expected.length;
        }
      }
    }
    return read;
  }
}
