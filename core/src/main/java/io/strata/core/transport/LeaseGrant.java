package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * The answer to a LEASE: where pages of a file version lie in the worker's segment files, pinned
 * there (never deleted nor overwritten) for {@code validMillis} from the grant. Pages the worker
 * holds only in memory, or not at all, are left out; the client reads those over the socket.
 *
 * <pre>
 *   int64 validMillis | int64 pageSize | uint16 n, n × path (uint16 length + UTF-8)
 *   int32 m, m × (int64 pageIndex | uint16 segment | int64 offset | int32 length | int32 crc32c)
 * </pre>
 */
public record LeaseGrant(long validMillis, long pageSize, List<String> segments, List<Page> pages) {
  /** Pages one grant may name; clients lease ranges of at most this many pages. */
  public static final int MAX_PAGES = 1024;

  /** Bytes of segment paths one grant may carry, keeping the frame far below the frame limit. */
  public static final int MAX_PATH_BYTES = 256 << 10;

  private static final int PAGE_ENTRY = 8 + 2 + 8 + 4 + 4;

  /** The smallest LEASED body: no segment, no page. */
  static final int MIN_BODY = 8 + 8 + 2 + 4;

  /**
   * The largest LEASED body: as many segments as pages (a segment no page names is never sent),
   * their paths within {@link #MAX_PATH_BYTES}.
   */
  static final int MAX_BODY = MIN_BODY + MAX_PAGES * 2 + MAX_PATH_BYTES + MAX_PAGES * PAGE_ENTRY;

  /**
   * One page: its index in the file, which segment file (an index into the grant's list), where in
   * it.
   */
  public record Page(long index, int segment, long offset, int length, int crc) {}

  public LeaseGrant {
    segments = List.copyOf(segments);
    pages = List.copyOf(pages);
    if (pages.size() > MAX_PAGES || segments.size() > MAX_PAGES) {
      throw new IllegalArgumentException(
          "a lease of " + pages.size() + " pages in " + segments.size() + " segments");
    }
  }

  /** The whole LEASED frame, length field included. */
  public ByteBuf encode(ByteBufAllocator alloc, long requestId) {
    ByteBuf b = alloc.buffer(64 + pages.size() * PAGE_ENTRY + segments.size() * 128);
    b.writeInt(0)
        .writeByte(Frames.LEASED)
        .writeLong(requestId)
        .writeLong(validMillis)
        .writeLong(pageSize)
        .writeShort(segments.size());
    segments.forEach(s -> Frames.writeString(b, s));
    b.writeInt(pages.size());
    for (Page p : pages) {
      b.writeLong(p.index)
          .writeShort(p.segment)
          .writeLong(p.offset)
          .writeInt(p.length)
          .writeInt(p.crc);
    }
    b.setInt(0, b.readableBytes() - 4);
    return b;
  }

  /**
   * Decodes the body of a LEASED frame (after type and request id); throws MalformedFrameException.
   */
  public static LeaseGrant decode(ByteBuf body) {
    Frames.need(body, 8 + 8 + 2);
    long validMillis = body.readLong();
    long pageSize = body.readLong();
    if (validMillis < 0 || pageSize <= 0 || pageSize > Integer.MAX_VALUE) {
      throw new MalformedFrameException(
          "LEASED frame with page size " + pageSize + ", valid " + validMillis + " ms");
    }
    int n = body.readUnsignedShort();
    // Each path takes at least its length field: a count the body cannot hold allocates nothing.
    if (n > MAX_PAGES || (long) n * 2 > body.readableBytes()) {
      throw new MalformedFrameException(
          "LEASED frame with " + n + " segments in " + body.readableBytes() + " bytes");
    }
    List<String> segments = new ArrayList<>(n);
    long pathBytes = 0;
    for (int i = 0; i < n; i++) {
      String path = Frames.readString(body);
      pathBytes += path.length();
      if (pathBytes > MAX_PATH_BYTES) {
        throw new MalformedFrameException(
            "LEASED frame with over " + MAX_PATH_BYTES + " path bytes");
      }
      segments.add(path);
    }
    Frames.need(body, 4);
    int m = body.readInt();
    if (m < 0 || m > MAX_PAGES || body.readableBytes() != (long) m * PAGE_ENTRY) {
      throw new MalformedFrameException(
          "LEASED frame with " + m + " pages in " + body.readableBytes() + " bytes");
    }
    List<Page> pages = new ArrayList<>(m);
    for (int i = 0; i < m; i++) {
      Page p =
          new Page(
              body.readLong(),
              body.readUnsignedShort(),
              body.readLong(),
              body.readInt(),
              body.readInt());
      if (p.segment >= n || p.index < 0 || p.offset < 0 || p.length < 0 || p.length > pageSize) {
        throw new MalformedFrameException("LEASED frame names a page out of bounds: " + p);
      }
      pages.add(p);
    }
    return new LeaseGrant(validMillis, pageSize, segments, pages);
  }
}
