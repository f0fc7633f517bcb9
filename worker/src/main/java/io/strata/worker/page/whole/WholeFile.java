package io.strata.worker.page.whole;

import io.strata.worker.page.PageId;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One fully cached file version kept as one plain file: page {@code i} of the version is bytes
 * {@code [i × pageSize, …)} of the file, and the file ends where the version ends, as the kernel's
 * passthrough needs of a backing file. Sealed: written once, each page's crc32c known, never
 * written again. What the index holds of it (see {@code KeyLayout}) is {@link #encode}d here.
 */
public final class WholeFile {
  private final PageId.FileKey key;
  private final Path path;
  private final long length;
  private final int pageSize;
  private final int[] crcs;

  WholeFile(PageId.FileKey key, Path path, long length, int pageSize, int[] crcs) {
    if (length < 0 || pageSize <= 0 || crcs.length != pageCount(length, pageSize)) {
      throw new IllegalArgumentException(
          "a whole file of " + length + " bytes in pages of " + pageSize + ": " + crcs.length);
    }
    this.key = key;
    this.path = path;
    this.length = length;
    this.pageSize = pageSize;
    this.crcs = crcs.clone();
  }

  public PageId.FileKey key() {
    return key;
  }

  /** The file itself (read-only: nothing writes it after the seal). */
  public Path path() {
    return path;
  }

  public long length() {
    return length;
  }

  public int pageSize() {
    return pageSize;
  }

  public int pages() {
    return crcs.length;
  }

  /** The crc32c of page {@code index}, taken from the bytes the seal wrote. */
  public int crc(int index) {
    return crcs[index];
  }

  /** Where page {@code index} starts in the file. */
  public long offset(int index) {
    return (long) index * pageSize;
  }

  /** The bytes of page {@code index}: the page size, less for the last page. */
  public int pageLength(int index) {
    return (int) Math.min(pageSize, length - offset(index));
  }

  static int pageCount(long length, int pageSize) {
    return Math.toIntExact((length + pageSize - 1) / pageSize);
  }

  /** The index entry: length, page size, whether the bytes are known on disk, the crcs. */
  byte[] encode(boolean synced) {
    ByteBuffer b = ByteBuffer.allocate(17 + 4 * crcs.length);
    b.putLong(length).putInt(pageSize).put((byte) (synced ? 1 : 0)).putInt(crcs.length);
    for (int crc : crcs) {
      b.putInt(crc);
    }
    return b.array();
  }

  /** An index entry read back; null if it is not one (a torn or foreign value). */
  static Entry decode(PageId.FileKey key, Path path, byte[] value) {
    if (value == null || value.length < 17) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    long length = b.getLong();
    int pageSize = b.getInt();
    boolean synced = b.get() == 1;
    int n = b.getInt();
    if (length < 0
        || pageSize <= 0
        || n < 0
        || b.remaining() != 4L * n
        || n != pageCount(length, pageSize)) {
      return null;
    }
    int[] crcs = new int[n];
    for (int i = 0; i < n; i++) {
      crcs[i] = b.getInt();
    }
    return new Entry(new WholeFile(key, path, length, pageSize, crcs), synced);
  }

  /** A whole file as indexed, and whether the last sync covered its bytes. */
  record Entry(WholeFile file, boolean synced) {}
}
