package io.strata.core.ufs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** Positioned reads of one open UFS file. Not thread-safe; one reader per thread. */
public interface UfsReader extends Closeable {
  /**
   * Reads up to {@code dst.remaining()} bytes at {@code position}, looping until the buffer is full
   * or the file ends. Returns the bytes read; fewer than asked only at end of file.
   */
  int readFully(long position, ByteBuffer dst) throws IOException;

  /**
   * Reads consecutive bytes from {@code position} into each of {@code dsts} in turn, each filled
   * before the next; returns the bytes read, fewer than asked only at end of file. Stores where a
   * request costs more than its bytes (an object store's GET, a DataNode's read operation) make it
   * one request; this default makes one per buffer.
   */
  default long readFully(long position, ByteBuffer[] dsts) throws IOException {
    long done = 0;
    for (ByteBuffer dst : dsts) {
      int want = dst.remaining();
      int n = readFully(position + done, dst);
      done += n;
      if (n < want) {
        break;
      }
    }
    return done;
  }

  /**
   * The length of the file this reader opened, from the under-storage itself (never from a caller's
   * word): the reader cuts pages by it, and {@link #currentFingerprint} afterwards confirms the
   * version.
   */
  long length() throws IOException;

  /**
   * A hint that the {@code length} bytes at {@code position} are read next: a store that can start
   * fetching them while the caller works on what it has does so, without waiting. This default does
   * nothing.
   */
  default void willNeed(long position, long length) {}

  /**
   * The file's fingerprint now, to check after a read that the bytes belong to the expected
   * version.
   */
  String currentFingerprint() throws IOException;

  @Override
  void close() throws IOException;
}
