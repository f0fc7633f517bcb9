package io.strata.worker.page;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The record format of segment files. A segment is a sequence of records, each
 *
 * <pre>
 *   int32 magic 'STPG' | int64 keyHigh | int64 keyLow | int64 pageIndex | int32 length | int32 crc32c | data
 * </pre>
 *
 * The header lets a segment be read back without the index: a worker that died while appending
 * keeps every record whose header and checksum hold, and cuts the file at the first that does not.
 */
final class SegmentFormat {
  static final int MAGIC = 0x53545047;
  static final int HEADER = 4 + 8 + 8 + 8 + 4 + 4;

  /** No page is larger (the page size is at most 64 MiB). */
  static final int MAX_PAGE = 64 << 20;

  /** A record's header, read back. */
  record Header(PageId id, int length, int crc) {}

  private SegmentFormat() {}

  static ByteBuffer header(PageId id, int length, int crc) {
    ByteBuffer b = ByteBuffer.allocate(HEADER);
    b.putInt(MAGIC)
        .putLong(id.keyHigh())
        .putLong(id.keyLow())
        .putLong(id.index())
        .putInt(length)
        .putInt(crc);
    return b.flip();
  }

  /** The header in {@code b}, or null if it is not one (torn write, garbage). */
  static Header parse(ByteBuffer b) {
    if (b.remaining() < HEADER || b.getInt() != MAGIC) {
      return null;
    }
    PageId id = new PageId(b.getLong(), b.getLong(), b.getLong());
    int length = b.getInt();
    int crc = b.getInt();
    return length < 0 || length > MAX_PAGE || id.index() < 0 ? null : new Header(id, length, crc);
  }

  static int crc(ByteBuffer data) {
    CRC32C c = new CRC32C();
    c.update(data.duplicate());
    return (int) c.getValue();
  }
}
