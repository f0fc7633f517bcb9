package io.strata.bench;

import io.strata.client.FileSystem;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/** Reads every file whole with several threads, each taking every n-th file; files per second. */
public final class ParallelReads {
  private interface Open {
    InputStream open(int i) throws IOException;
  }

  private ParallelReads() {}

  /** Every file of {@code folder}, in name order. */
  public static double folder(Path folder, int threads) throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.list(folder)) {
      files = s.sorted().toList();
    }
    return files(files, threads);
  }

  public static double files(List<Path> files, int threads) throws Exception {
    return run(files.size(), threads, i -> Files.newInputStream(files.get(i)));
  }

  /** Through the Java client: open, read to the end, close. */
  public static double strata(FileSystem fs, List<String> paths, int threads) throws Exception {
    return run(paths.size(), threads, i -> fs.open(paths.get(i)));
  }

  private static double run(int files, int threads, Open open) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    try {
      List<Future<?>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        parts.add(
            pool.submit(
                () -> {
                  byte[] buf = new byte[128 << 10];
                  for (int i = first; i < files; i += threads) {
                    try (InputStream in = open.open(i)) {
                      while (in.read(buf) > 0) {
                        // Only the reading is measured.
                      }
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }
                }));
      }
      for (Future<?> f : parts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return files / ((System.nanoTime() - start) / 1e9);
  }
}
