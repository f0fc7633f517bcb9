package io.strata.client.data;

import java.nio.ByteBuffer;

/**
 * A file's bytes from some position on, read on the caller's own thread. Errors are
 * StrataExceptions; after one, the reader is spent and is only closed. Not thread-safe.
 */
public interface StreamReader extends AutoCloseable {
  /** The file offset of the next byte {@link #read} returns. */
  long position();

  /**
   * Reads at least one byte at {@link #position()} into {@code dst} (up to its remaining room),
   * advancing its position; blocks until some come. A direct {@code dst} takes them from the socket
   * with no copy in between.
   */
  int read(ByteBuffer dst);

  /**
   * Moves forward to {@code pos} if it lies a little ahead in bytes already on their way; false
   * (and no move) otherwise.
   */
  boolean skipTo(long pos);

  @Override
  void close();
}
