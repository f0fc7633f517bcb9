package io.strata.client.data;

/**
 * A file's bytes from some position on, read on the caller's own thread. Errors are
 * StrataExceptions; after one, the reader is spent and is only closed. Not thread-safe.
 */
public interface StreamReader extends AutoCloseable {
  /** The file offset of the next byte {@link #read} returns. */
  long position();

  /** Reads at least one and at most {@code len} bytes at {@link #position()} into {@code b}; blocks until some come. */
  int read(byte[] b, int off, int len);

  /** Moves forward to {@code pos} if it lies a little ahead in bytes already on their way; false (and no move) otherwise. */
  boolean skipTo(long pos);

  @Override
  void close();
}
