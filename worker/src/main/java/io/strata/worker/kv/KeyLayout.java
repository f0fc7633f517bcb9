package io.strata.worker.kv;

import io.strata.worker.page.PageId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Every key and value layout the worker stores, in one place. All integers big-endian, so keys sort
 * by their numeric parts.
 *
 * <pre>
 * store                   key                                     value
 * page index (per dir)    'P' keyHigh:8 keyLow:8 pageIndex:8      segment:8 offset:8 length:4 crc32c:4
 *                         'S' segment:8                           state:1 (0 open, 1 sealed) size:8
 *                         'N'                                     next segment id:8 (never reused)
 * metadata                'F' ufsUri (UTF-8)                      loadedAtMs:8 FileStatus (protobuf)
 *                         'L' ufsUri (UTF-8)                      loadedAtMs:8 ListStatusResponse (protobuf)
 *   a listing too long    'H' ufsUri (UTF-8)                      loadedAtMs:8 entries:8 (present once every
 *   for one value                                                 row is written)
 *                         'R' ufsUri NUL name (UTF-8)             FileStatus (protobuf), one per entry
 * cached versions         'C' ufsUri NUL fingerprint (UTF-8)      fileLength:8
 *   (first SSD dir's index, beside its pages)
 * whole files (per dir)   'W' keyHigh:8 keyLow:8                  length:8 pageSize:4 synced:1
 *                                                                 pages:4 crc32c:4 per page
 * </pre>
 */
public final class KeyLayout {
  public static final byte PAGE = 'P';
  public static final byte SEGMENT = 'S';
  public static final byte FILE_STATUS = 'F';
  public static final byte LISTING = 'L';
  public static final byte CACHED_VERSION = 'C';
  public static final byte NEXT_SEGMENT = 'N';
  public static final byte WHOLE_FILE = 'W';
  public static final byte LARGE_LISTING = 'H';
  public static final byte LISTING_ROW = 'R';

  private KeyLayout() {}

  public static byte[] pageKey(PageId id) {
    return ByteBuffer.allocate(25)
        .put(PAGE)
        .putLong(id.keyHigh())
        .putLong(id.keyLow())
        .putLong(id.index())
        .array();
  }

  public static PageId pageIdOf(byte[] key) {
    ByteBuffer b = ByteBuffer.wrap(key, 1, 24);
    return new PageId(b.getLong(), b.getLong(), b.getLong());
  }

  public static byte[] segmentKey(long segment) {
    return ByteBuffer.allocate(9).put(SEGMENT).putLong(segment).array();
  }

  public static long segmentOf(byte[] key) {
    return ByteBuffer.wrap(key, 1, 8).getLong();
  }

  /**
   * The id the next segment takes. Ids are never reused, even across restarts: a client may still
   * map a deleted segment's file and hold a lease naming it.
   */
  public static byte[] nextSegmentKey() {
    return new byte[] {NEXT_SEGMENT};
  }

  public static byte[] metadataKey(byte kind, String ufsUri) {
    byte[] uri = ufsUri.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + uri.length).put(kind).put(uri).array();
  }

  /** Where the rows of the listing of {@code ufsUri} start: every row key begins so. */
  public static byte[] listingRowsPrefix(String ufsUri) {
    byte[] uri = ufsUri.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(2 + uri.length).put(LISTING_ROW).put(uri).put((byte) 0).array();
  }

  /** The row of entry {@code name} in the listing of {@code ufsUri}: rows sort by name's bytes. */
  public static byte[] listingRowKey(String ufsUri, String name) {
    byte[] prefix = listingRowsPrefix(ufsUri);
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(prefix.length + n.length).put(prefix).put(n).array();
  }

  /**
   * The name of the entry whose row key is {@code rowKey}, under the rows prefix {@code prefix}.
   */
  public static String nameOfRow(byte[] rowKey, byte[] prefix) {
    return new String(rowKey, prefix.length, rowKey.length - prefix.length, StandardCharsets.UTF_8);
  }

  /**
   * The least key after every key that starts with {@code prefix} (for a range's end); the prefix
   * ends in a byte below 0xFF here (a kind byte, a URI's last byte, or NUL).
   */
  public static byte[] afterPrefix(byte[] prefix) {
    byte[] end = prefix.clone();
    end[end.length - 1]++;
    return end;
  }

  /** The UFS URI of a metadata key. */
  public static String uriOf(byte[] metadataKey) {
    return new String(metadataKey, 1, metadataKey.length - 1, StandardCharsets.UTF_8);
  }

  public static byte[] wholeFileKey(PageId.FileKey key) {
    return ByteBuffer.allocate(17).put(WHOLE_FILE).putLong(key.high()).putLong(key.low()).array();
  }

  public static PageId.FileKey fileKeyOf(byte[] wholeFileKey) {
    ByteBuffer b = ByteBuffer.wrap(wholeFileKey, 1, 16);
    return new PageId.FileKey(b.getLong(), b.getLong());
  }

  public static byte[] prefix(byte kind) {
    return new byte[] {kind};
  }
}
