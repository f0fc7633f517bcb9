package io.strata.worker.page;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A page lying in a segment file whose checksum already held in this process, to be sent to a
 * socket without passing through memory (sendfile from the page cache). Holds a reference on its
 * segment's file until {@link #release}; every region cut from it holds one of its own until sent.
 */
public final class DiskPage {
  private final Segment segment;
  private final PageLocation location;
  private final AtomicBoolean released = new AtomicBoolean();

  DiskPage(Segment segment, PageLocation location) {
    this.segment = segment;
    this.location = location;
  }

  public int length() {
    return location.length();
  }

  /**
   * Bytes {@code [from, from + count)} of the page as a file region that Netty sends by sendfile.
   */
  public FileRegion region(int from, int count) {
    checkRange(from, count);
    if (!segment.retain()) {
      throw new IllegalStateException(
          "segment " + segment.path + " closed under a page that held it");
    }
    return new SegmentRegion(segment, location.offset() + from, count);
  }

  /** Bytes {@code [from, from + count)} of the page read into a new buffer (one pread). */
  public ByteBuf copy(ByteBufAllocator allocator, int from, int count) throws IOException {
    checkRange(from, count);
    ByteBuf buf = allocator.directBuffer(count, count);
    try {
      int n = segment.read(location.offset() + from, buf.nioBuffer(0, count));
      if (n != count) {
        throw new IOException("segment " + segment.path + " ends inside a page");
      }
      return buf.writerIndex(count);
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  private void checkRange(int from, int count) {
    if (from < 0 || count < 0 || from + count > location.length()) {
      throw new IndexOutOfBoundsException(
          from + "+" + count + " of a page of " + location.length());
    }
  }

  public void release() {
    if (released.compareAndSet(false, true)) {
      segment.release();
    }
  }

  /**
   * A {@link DefaultFileRegion} (the class Netty's epoll transport sends natively) over the
   * segment's shared channel: when sent it gives back its segment reference instead of closing the
   * channel.
   */
  private static final class SegmentRegion extends DefaultFileRegion {
    private final Segment segment;

    SegmentRegion(Segment segment, long position, long count) {
      super(segment.channel(), position, count);
      this.segment = segment;
    }

    @Override
    protected void deallocate() {
      segment.release();
    }
  }
}
