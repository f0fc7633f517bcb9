package io.strata.testkit.integrity;

import java.nio.ByteBuffer;

/**
 * File contents that say where they belong: every 32-byte block of version {@code v} of file {@code
 * f} holds {@code [magic | f | v | block index | check]}, so any byte read names its file, version
 * and offset. A read is checked by rebuilding what each block it covers must hold.
 */
final class SelfDescribing {
  static final int BLOCK = 32;
  private static final int MAGIC = 0x53495631; // "SIV1"

  private SelfDescribing() {}

  /** Version {@code version} of file {@code file}, {@code length} bytes. */
  static byte[] content(int file, long version, int length) {
    byte[] out = new byte[length];
    ByteBuffer block = ByteBuffer.allocate(BLOCK);
    for (int at = 0; at < length; at += BLOCK) {
      fill(block, file, version, at / BLOCK);
      System.arraycopy(block.array(), 0, out, at, Math.min(BLOCK, length - at));
    }
    return out;
  }

  /**
   * The version whose bytes {@code bytes[0, n)}, read at {@code offset} of file {@code file}, are;
   * -1 when they are not all the bytes of one version of this file at those offsets.
   */
  static long versionOf(int file, long offset, byte[] bytes, int n) {
    if (n == 0) {
      return Long.MIN_VALUE;
    }
    long version = -1;
    ByteBuffer expected = ByteBuffer.allocate(BLOCK);
    for (int i = 0; i < n; ) {
      long pos = offset + i;
      long blockIndex = pos / BLOCK;
      int inBlock = (int) (pos % BLOCK);
      if (version < 0) {
        version = versionIn(bytes, i, inBlock, n);
        if (version < 0) {
          return -1;
        }
      }
      fill(expected, file, version, blockIndex);
      int run = Math.min(BLOCK - inBlock, n - i);
      for (int k = 0; k < run; k++) {
        if (bytes[i + k] != expected.get(inBlock + k)) {
          return -1;
        }
      }
      i += run;
    }
    return version;
  }

  /**
   * The version a block claims, read from its version field when the read covers it; else from a
   * following block's. -1 if no version field is covered (a read of under 16 bytes, say): then the
   * caller cannot tell, and such reads are not made.
   */
  private static long versionIn(byte[] bytes, int i, int inBlock, int n) {
    int versionAt = 8 - inBlock;
    if (versionAt >= 0 && i + versionAt + 8 <= n) {
      return ByteBuffer.wrap(bytes, i + versionAt, 8).getLong();
    }
    int nextBlock = i + (BLOCK - inBlock);
    if (nextBlock + 16 <= n) {
      return ByteBuffer.wrap(bytes, nextBlock + 8, 8).getLong();
    }
    return -1;
  }

  private static void fill(ByteBuffer block, int file, long version, long index) {
    block
        .clear()
        .putInt(MAGIC)
        .putInt(file)
        .putLong(version)
        .putLong(index)
        .putLong(mix(file, version, index));
  }

  private static long mix(int file, long version, long index) {
    long h = 0x9E3779B97F4A7C15L * (file + 1) ^ version * 0xC2B2AE3D27D4EB4FL ^ index;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    return h ^ (h >>> 33);
  }
}
