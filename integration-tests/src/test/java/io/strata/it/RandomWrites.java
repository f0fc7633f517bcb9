package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * A randomized writer and reader of one file opened for update, checked against an in-memory model
 * of its bytes: positioned writes (over, past the end, leaving holes), truncates up and down, reads
 * anywhere through the same descriptor, fsyncs, and closes and reopens (after which the whole file
 * must read back as the model). Seeded and bounded in steps.
 */
final class RandomWrites {
  private static final int MAX_SIZE = 1 << 20;

  private RandomWrites() {}

  /** Runs {@code steps} random operations on {@code file}; returns the checks made. */
  static int run(Path file, long seed, int steps) throws IOException {
    Random r = new Random(seed);
    byte[] model = new byte[0];
    int checks = 0;
    RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw");
    try {
      f.setLength(0);
      for (int step = 0; step < steps; step++) {
        String at = "seed " + seed + ", step " + step;
        int op = r.nextInt(10);
        if (op < 4) {
          int offset = r.nextInt(Math.max(1, model.length + 4096));
          byte[] bytes = new byte[1 + r.nextInt(r.nextBoolean() ? 64 : 65536)];
          r.nextBytes(bytes);
          if (offset + bytes.length > MAX_SIZE) {
            continue;
          }
          f.seek(offset);
          f.write(bytes);
          if (offset + bytes.length > model.length) {
            model = Arrays.copyOf(model, offset + bytes.length);
          }
          System.arraycopy(bytes, 0, model, offset, bytes.length);
        } else if (op < 7) {
          int offset = r.nextInt(model.length + 1);
          int length = Math.min(model.length - offset, r.nextInt(70_000));
          byte[] got = new byte[length];
          f.seek(offset);
          f.readFully(got);
          assertThat(got)
              .as("%s: %d bytes at %d", at, length, offset)
              .isEqualTo(Arrays.copyOfRange(model, offset, offset + length));
          checks++;
        } else if (op == 7) {
          int size = r.nextInt(Math.min(MAX_SIZE, model.length + 8192) + 1);
          f.setLength(size);
          model = Arrays.copyOf(model, size);
        } else if (op == 8) {
          f.getFD().sync();
        } else {
          f.close();
          f = new RandomAccessFile(file.toFile(), "rw");
          assertThat(Files.readAllBytes(file))
              .as("%s: the file after a close", at)
              .isEqualTo(model);
          checks++;
        }
        assertThat(f.length()).as("%s: the size", at).isEqualTo(model.length);
      }
    } finally {
      f.close();
    }
    assertThat(Files.readAllBytes(file)).as("seed %d: the file at the end", seed).isEqualTo(model);
    return checks + 1;
  }
}
