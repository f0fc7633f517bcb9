package io.strata.bench.hadoop;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Reads as a Hadoop job's tasks do: through the FileSystem API, a file per task at a time. */
final class HadoopReads {
  private HadoopReads() {}

  /** Every file of {@code folder} (and below), sorted. */
  static List<FileStatus> files(FileSystem fs, Path folder) throws Exception {
    List<FileStatus> out = new ArrayList<>();
    for (FileStatus s : fs.listStatus(folder)) {
      if (s.isDirectory()) {
        out.addAll(files(fs, s.getPath()));
      } else {
        out.add(s);
      }
    }
    out.sort((a, b) -> a.getPath().compareTo(b.getPath()));
    return out;
  }

  /** Reads {@code files} whole in 1 MiB reads, {@code threads} at a time; MB/s. */
  static double streamed(FileSystem fs, List<FileStatus> files, int threads) throws Exception {
    return megabytesPerSecond(files, threads, f -> readWhole(fs, f, (buf, n, at) -> {}));
  }

  /**
   * Reads {@code files} as {@link #streamed} does, and keeps every 1 MiB read as a read-through
   * cache must at the least: written into a file of {@code folder} and its crc32c taken (a file
   * each, deleted once read); MB/s. No cache that keeps each byte it passes on, with a checksum,
   * can serve faster on this host, even with a reader in its own process (no hop).
   */
  static double streamedAndKept(
      FileSystem fs, List<FileStatus> files, int threads, java.nio.file.Path folder)
      throws Exception {
    return megabytesPerSecond(
        files,
        threads,
        f -> {
          CRC32C crc = new CRC32C();
          java.nio.file.Path kept = folder.resolve(f.getPath().getName());
          try (FileChannel out =
              FileChannel.open(
                  kept,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.TRUNCATE_EXISTING,
                  StandardOpenOption.WRITE)) {
            return readWhole(
                fs,
                f,
                (buf, n, at) -> {
                  crc.reset();
                  crc.update(buf, 0, n);
                  ByteBuffer chunk = ByteBuffer.wrap(buf, 0, n);
                  while (chunk.hasRemaining()) {
                    out.write(chunk, at + chunk.position());
                  }
                });
          } finally {
            Files.deleteIfExists(kept);
          }
        });
  }

  /** What is done with each read: {@code n} bytes of {@code buf}, read at {@code at}. */
  private interface Chunk {
    void accept(byte[] buf, int n, long at) throws IOException;
  }

  /** Reads {@code f} whole from {@code fs} in 1 MiB reads, each given to {@code each}; bytes. */
  private static long readWhole(FileSystem fs, FileStatus f, Chunk each) throws IOException {
    byte[] buf = new byte[1 << 20];
    long n = 0;
    try (FSDataInputStream in = fs.open(f.getPath())) {
      for (int got; (got = in.read(buf, 0, buf.length)) > 0; ) {
        each.accept(buf, got, n);
        n += got;
      }
    }
    return n;
  }

  private static double megabytesPerSecond(List<FileStatus> files, int threads, Read read)
      throws Exception {
    long bytes = files.stream().mapToLong(FileStatus::getLen).sum();
    return bytes / seconds(files, threads, read) / 1e6;
  }

  /** Opens, reads whole and closes each of {@code files}, {@code threads} at a time; files/s. */
  static double opened(FileSystem fs, List<FileStatus> files, int threads) throws Exception {
    return files.size()
        / seconds(
            files,
            threads,
            f -> {
              byte[] buf = new byte[(int) f.getLen()];
              try (FSDataInputStream in = fs.open(f.getPath())) {
                in.readFully(0, buf);
              }
              return buf.length;
            });
  }

  /** Seconds {@code read} takes over {@code files}, having read each whole (checked). */
  private static double seconds(List<FileStatus> files, int threads, Read read) throws Exception {
    long start = System.nanoTime();
    long bytes = eachFile(files, threads, read);
    double seconds = (System.nanoTime() - start) / 1e9;
    check(files, bytes);
    return seconds;
  }

  private interface Read {
    long apply(FileStatus f) throws Exception;
  }

  private static long eachFile(List<FileStatus> files, int threads, Read read) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Long>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        parts.add(
            pool.submit(
                () -> {
                  long n = 0;
                  for (int i = first; i < files.size(); i += threads) {
                    n += read.apply(files.get(i));
                  }
                  return n;
                }));
      }
      long total = 0;
      for (Future<Long> p : parts) {
        total += p.get();
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }

  private static void check(List<FileStatus> files, long bytes) {
    long expected = files.stream().mapToLong(FileStatus::getLen).sum();
    if (bytes != expected) {
      throw new IllegalStateException(
          "read " + bytes + " bytes of the " + expected + " in " + files.size() + " files");
    }
  }
}
