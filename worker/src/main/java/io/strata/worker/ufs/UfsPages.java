package io.strata.worker.ufs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads a run of consecutive pages of one file version in one under-storage request (one ranged
 * GET, one pread): a store charges per request, and an object store's or a DataNode's cost of
 * starting one dwarfs that of a page's bytes. Each page is read straight into a buffer of its own
 * (no copy), so that the cache can keep or drop it alone.
 */
public final class UfsPages {
  private UfsPages() {}

  /** Fails when the file is no longer the version the pages are read for. */
  @FunctionalInterface
  public interface VersionCheck {
    void confirm() throws IOException;
  }

  /**
   * Pages {@code first} to {@code first + count - 1} as {@code reader} has them, cut by the length
   * of the file it opened (never by a caller's word): fewer than {@code count} when the file ends
   * sooner, none when it ends before {@code first}. {@code version} runs after the read and before
   * anything is made of its bytes (a short read is a changed file's first); the caller releases the
   * pages.
   */
  public static ByteBuf[] read(
      UfsReader reader,
      long first,
      int count,
      long pageSize,
      ByteBufAllocator allocator,
      VersionCheck version)
      throws IOException {
    long offset = first * pageSize;
    long available = reader.length() - offset;
    if (available <= 0) {
      version.confirm();
      return new ByteBuf[0];
    }
    int total = (int) Math.min(count * pageSize, available);
    int pages = (int) ((total + pageSize - 1) / pageSize);
    ByteBuf[] out = new ByteBuf[pages];
    try {
      ByteBuffer[] into = new ByteBuffer[pages];
      for (int k = 0; k < pages; k++) {
        int length = (int) Math.min(pageSize, total - k * pageSize);
        out[k] = allocator.directBuffer(length, length);
        into[k] = out[k].nioBuffer(0, length);
      }
      long got = reader.readFully(offset, into);
      version.confirm();
      requireWhole(got, total, offset);
      for (ByteBuf page : out) {
        page.writerIndex(page.capacity());
      }
      return out;
    } catch (IOException | RuntimeException e) {
      for (ByteBuf b : out) {
        if (b != null) {
          b.release();
        }
      }
      throw e;
    }
  }

  private static void requireWhole(long got, int wanted, long offset) {
    if (got != wanted) {
      throw StrataException.internal(
          "short read from the under-storage at "
              + offset
              + ": "
              + got
              + " of "
              + wanted
              + " bytes",
          null);
    }
  }
}
