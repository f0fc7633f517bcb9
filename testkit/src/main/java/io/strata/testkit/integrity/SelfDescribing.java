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
   * What {@code bytes[0, n)}, read at {@code offset} of file {@code file}, hold, as runs of 32-byte
   * blocks: "[0, 65536) version 17, [65536, 69632) zeros, [69632, 2442608) version 15". For a
   * violation's report: which versions a mixed read mixed, and where it changed from one to the
   * next. At most {@code maxRuns} runs are named.
   */
  static String describe(int file, long offset, byte[] bytes, int n, int maxRuns) {
    Read read = new Read(file, offset, bytes, n);
    StringBuilder out = new StringBuilder();
    String label = null;
    long runStart = offset;
    int runs = 0;
    for (int i = 0; i < n; i = read.blockEnd(i)) {
      String here = read.label(i, label);
      if (!here.equals(label)) {
        if (label != null && runs++ < maxRuns) {
          appendRun(out, runStart, offset + i, label);
        }
        label = here;
        runStart = offset + i;
      }
    }
    if (label != null && runs++ < maxRuns) {
      appendRun(out, runStart, offset + n, label);
    }
    if (runs > maxRuns) {
      out.append(", and ").append(runs - maxRuns).append(" more runs");
    }
    return out.toString();
  }

  private static void appendRun(StringBuilder out, long start, long end, String label) {
    if (out.length() > 0) {
      out.append(", ");
    }
    out.append('[').append(start).append(", ").append(end).append(") ").append(label);
  }

  /**
   * Bytes {@code [0, n)} read at {@code offset} of file {@code file}, told apart block by block.
   */
  private static final class Read {
    private final int file;
    private final long offset;
    private final byte[] bytes;
    private final int n;

    Read(int file, long offset, byte[] bytes, int n) {
      this.file = file;
      this.offset = offset;
      this.bytes = bytes;
      this.n = n;
    }

    /** Where the block holding {@code bytes[i]} ends in {@code bytes}. */
    int blockEnd(int i) {
      return (int) Math.min(n, i + BLOCK - (offset + i) % BLOCK);
    }

    /**
     * What the piece of a block at {@code bytes[i]} holds: a version of this file, of another,
     * zeros, or other bytes. A piece too short to name its version is tried as the run before it
     * ({@code before}), else as the block after it.
     */
    String label(int i, String before) {
      int end = blockEnd(i);
      int inBlock = (int) ((offset + i) % BLOCK);
      boolean zeros = true;
      for (int k = i; k < end; k++) {
        zeros &= bytes[k] == 0;
      }
      if (zeros) {
        return "zeros";
      }
      int claimedFile;
      long claimed;
      long index = (offset + i) / BLOCK;
      if (inBlock <= 4 && end - i + inBlock >= 24) {
        claimedFile = ByteBuffer.wrap(bytes, i + 4 - inBlock, 4).getInt();
        claimed = ByteBuffer.wrap(bytes, i + 8 - inBlock, 8).getLong();
        long claimedIndex = ByteBuffer.wrap(bytes, i + 16 - inBlock, 8).getLong();
        if (claimedIndex != index && holds(claimedFile, claimed, claimedIndex, i, end, inBlock)) {
          // Bytes of the right kind from the wrong place: an offset mixed up on the way.
          return name(claimedFile, claimed)
              + " shifted by "
              + (index - claimedIndex) * BLOCK
              + " bytes";
        }
      } else if (inBlock <= 4 && end - i + inBlock >= 16) {
        claimedFile = ByteBuffer.wrap(bytes, i + 4 - inBlock, 4).getInt();
        claimed = ByteBuffer.wrap(bytes, i + 8 - inBlock, 8).getLong();
      } else if (before != null && before.startsWith("version ")) {
        claimedFile = file;
        String rest = before.substring("version ".length());
        int space = rest.indexOf(' ');
        claimed = Long.parseLong(space < 0 ? rest : rest.substring(0, space));
      } else if (end + 16 <= n) {
        claimedFile = ByteBuffer.wrap(bytes, end + 4, 4).getInt();
        claimed = ByteBuffer.wrap(bytes, end + 8, 8).getLong();
      } else {
        return "other bytes";
      }
      return holds(claimedFile, claimed, index, i, end, inBlock)
          ? name(claimedFile, claimed)
          : "other bytes";
    }

    /** Whether {@code bytes[i, end)} are those of block {@code index} of that version. */
    private boolean holds(int f, long version, long index, int i, int end, int inBlock) {
      ByteBuffer expected = ByteBuffer.allocate(BLOCK);
      fill(expected, f, version, index);
      for (int k = i; k < end; k++) {
        if (bytes[k] != expected.get(inBlock + k - i)) {
          return false;
        }
      }
      return true;
    }

    private String name(int f, long version) {
      return f == file ? "version " + version : "file " + f + " version " + version;
    }
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
