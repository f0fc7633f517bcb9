package io.strata.worker.page;

import java.nio.ByteBuffer;

/**
 * Where a page's bytes sit on an SSD tier: a record in a segment file. {@code offset} is the
 * position of the page data (after its record header); {@code crc} is its crc32c. {@code verified}
 * says the bytes matched the crc when this process read them (never persisted: a restarted worker
 * checks each page again before sending it straight from the file).
 */
public record PageLocation(long segment, long offset, int length, int crc, boolean verified) {
  public PageLocation(long segment, long offset, int length, int crc) {
    this(segment, offset, length, crc, false);
  }

  PageLocation asVerified() {
    return verified ? this : new PageLocation(segment, offset, length, crc, true);
  }

  /** The index entry (see {@code KeyLayout}): segment, offset, length, crc. */
  byte[] encode() {
    return ByteBuffer.allocate(24)
        .putLong(segment)
        .putLong(offset)
        .putInt(length)
        .putInt(crc)
        .array();
  }

  static PageLocation decode(byte[] v) {
    ByteBuffer b = ByteBuffer.wrap(v);
    return new PageLocation(b.getLong(), b.getLong(), b.getInt(), b.getInt());
  }
}
