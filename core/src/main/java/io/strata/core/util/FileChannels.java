package io.strata.core.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** What FileChannel leaves to its callers. */
public final class FileChannels {
  private FileChannels() {}

  /**
   * Reads at {@code position} until {@code dst} is full or the file ends, without moving the
   * channel; returns the bytes read.
   */
  public static int readFully(FileChannel channel, long position, ByteBuffer dst)
      throws IOException {
    int total = 0;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, position + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }
}
