package io.strata.worker.ufs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import java.io.IOException;

/**
 * Reads a run of consecutive pages of one file version in one under-storage request (one ranged
 * GET, one pread): a store charges per request, and an object store's or a DataNode's cost of
 * starting one dwarfs that of a page's bytes. Each page comes back in a buffer of its own, so that
 * the cache can keep or drop it alone.
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
    if (pages == 1) {
      ByteBuf page = allocator.directBuffer(total, total);
      try {
        page.writerIndex(reader.readFully(offset, page.nioBuffer(0, total)));
        version.confirm();
        requireWhole(page.readableBytes(), total, offset);
        return new ByteBuf[] {page};
      } catch (IOException | RuntimeException e) {
        page.release();
        throw e;
      }
    }
    ByteBuf run = allocator.directBuffer(total, total);
    ByteBuf[] out = new ByteBuf[pages];
    try {
      run.writerIndex(reader.readFully(offset, run.nioBuffer(0, total)));
      version.confirm();
      requireWhole(run.readableBytes(), total, offset);
      for (int k = 0; k < pages; k++) {
        int from = (int) (k * pageSize);
        int length = (int) Math.min(pageSize, total - from);
        out[k] = allocator.directBuffer(length, length).writeBytes(run, from, length);
      }
      return out;
    } catch (IOException | RuntimeException e) {
      for (ByteBuf b : out) {
        if (b != null) {
          b.release();
        }
      }
      throw e;
    } finally {
      run.release();
    }
  }

  private static void requireWhole(int got, int wanted, long offset) {
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
