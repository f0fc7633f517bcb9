package io.strata.bench.loader;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32;

/**
 * The data sets a training loader reads: samples as files in class folders (ImageNet's layout,
 * log-normal sizes around a mean), or WebDataset-style shards; each with a manifest of path, size
 * and crc32 that the reader checks every sample against.
 */
final class Dataset {
  /** Spread of the log-normal sizes (sigma of their logarithm): ImageNet's JPEGs are about this. */
  private static final double SIGMA = 0.4;

  private Dataset() {}

  /** {@code count} files of about {@code meanSize} bytes in {@code classes} folders. */
  static Path files(Path root, int count, long meanSize, int classes) throws IOException {
    Random r = new Random(53);
    double mu = Math.log((double) meanSize) - SIGMA * SIGMA / 2;
    Path manifest = root.resolveSibling(root.getFileName() + ".manifest");
    try (Writer m = Files.newBufferedWriter(manifest, StandardCharsets.UTF_8)) {
      for (int i = 0; i < count; i++) {
        String rel = String.format("class%03d/%07d.jpg", i % classes, i);
        int size =
            (int) Math.max(4096, Math.min(16L << 20, Math.exp(mu + SIGMA * r.nextGaussian())));
        byte[] b = new byte[size];
        r.nextBytes(b);
        Path file = root.resolve(rel);
        Files.createDirectories(file.getParent());
        Files.write(file, b);
        m.write(line(rel, b, size));
      }
    }
    return manifest;
  }

  /** {@code count} shards of {@code size} bytes each. */
  static Path shards(Path root, int count, long size) throws IOException {
    Random r = new Random(54);
    Files.createDirectories(root);
    Path manifest = root.resolveSibling(root.getFileName() + ".manifest");
    byte[] block = new byte[1 << 20];
    try (Writer m = Files.newBufferedWriter(manifest, StandardCharsets.UTF_8)) {
      for (int i = 0; i < count; i++) {
        String rel = String.format("shard-%05d.tar", i);
        CRC32 crc = new CRC32();
        try (OutputStream out = Files.newOutputStream(root.resolve(rel))) {
          for (long done = 0; done < size; done += block.length) {
            int n = (int) Math.min(block.length, size - done);
            r.nextBytes(block);
            out.write(block, 0, n);
            crc.update(block, 0, n);
          }
        }
        m.write(String.format("%s\t%d\t%08x%n", rel, size, crc.getValue()));
      }
    }
    return manifest;
  }

  private static String line(String rel, byte[] b, int size) {
    CRC32 crc = new CRC32();
    crc.update(b, 0, size);
    return String.format("%s\t%d\t%08x%n", rel, size, crc.getValue());
  }
}
