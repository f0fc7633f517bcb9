package io.strata.bench.fuse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/** Reads every file of a folder whole, with several threads; files per second. */
final class SmallFiles {
  private SmallFiles() {}

  static double readAll(Path folder, int threads) throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.list(folder)) {
      files = s.sorted().toList();
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    try {
      List<Future<?>> parts = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        parts.add(pool.submit(() -> {
          byte[] buf = new byte[128 << 10];
          for (int i = first; i < files.size(); i += threads) {
            try (var in = Files.newInputStream(files.get(i))) {
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
    return files.size() / ((System.nanoTime() - start) / 1e9);
  }
}
