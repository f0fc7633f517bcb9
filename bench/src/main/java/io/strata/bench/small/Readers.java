package io.strata.bench.small;

import io.strata.client.FileInStream;
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

/** Reads every file whole with several threads, each taking every n-th file; files per second. */
final class Readers {
  private interface Open {
    InputStream open(int i) throws IOException;
  }

  private Readers() {}

  static double raw(Path folder, List<String> paths, int threads) throws Exception {
    return run(paths.size(), threads, i -> Files.newInputStream(folder.resolve(name(paths.get(i)))));
  }

  static double strata(FileSystem fs, List<String> paths, int threads) throws Exception {
    return run(paths.size(), threads, i -> {
      FileInStream in = fs.open(paths.get(i));
      return in;
    });
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static double run(int files, int threads, Open open) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    try {
      List<Future<?>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        parts.add(pool.submit(() -> {
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
