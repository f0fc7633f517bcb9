package io.strata.client;

import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import java.io.EOFException;
import java.io.InputStream;

/**
 * Reads one version of a file (the one its {@link FileInfo} names). Streaming reads go through a
 * buffer filled one large range at a time; reads at least as large as the buffer bypass it; a
 * positioned read never moves the stream. If the file changes in the under-storage while it is
 * read, reads fail with FAILED_PRECONDITION rather than mix two versions.
 *
 * <p>Not thread-safe, like any InputStream; positioned reads may run concurrently.
 */
public final class FileInStream extends InputStream {
  /** Reads bytes of the file's version at an offset; short only at end of file. */
  @FunctionalInterface
  interface RangeReader {
    int read(long offset, byte[] dst, int dstOffset, int length);
  }

  private final FileInfo file;
  private final RangeReader reader;
  private final byte[] buffer;
  private long bufferStart;
  private int bufferLength;
  private long position;
  private boolean closed;

  FileInStream(FileInfo file, RangeReader reader, int bufferSize) {
    this.file = file;
    this.reader = reader;
    this.buffer = new byte[(int) Math.min(bufferSize, Math.max(1, file.length()))];
  }

  public FileInfo info() {
    return file;
  }

  public long length() {
    return file.length();
  }

  public long getPos() {
    return position;
  }

  public void seek(long newPosition) {
    checkOpen();
    if (newPosition < 0) {
      throw StrataException.invalidArgument("cannot seek to a negative position " + newPosition);
    }
    position = newPosition;
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    checkOpen();
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    if (position >= file.length()) {
      return -1;
    }
    if (!buffered(position)) {
      if (len >= buffer.length) {
        int n = positionedRead(position, b, off, len);
        position += n;
        return n;
      }
      fill(position);
    }
    int at = (int) (position - bufferStart);
    int n = Math.min(len, bufferLength - at);
    System.arraycopy(buffer, at, b, off, n);
    position += n;
    return n;
  }

  /** Reads at {@code pos} without moving the stream; -1 at or past the end. */
  public int positionedRead(long pos, byte[] b, int off, int len) {
    checkOpen();
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (pos >= file.length()) {
      return -1;
    }
    int wanted = (int) Math.min(len, file.length() - pos);
    int done = 0;
    while (done < wanted) {
      int ask = (int) Math.min(wanted - done, Frames.MAX_READ_LENGTH);
      int n = reader.read(pos + done, b, off + done, ask);
      if (n <= 0) {
        break;
      }
      done += n;
    }
    return done;
  }

  /** Reads exactly {@code len} bytes at {@code pos}, or fails with EOFException. */
  public void readFully(long pos, byte[] b, int off, int len) throws EOFException {
    int n = len == 0 ? 0 : positionedRead(pos, b, off, len);
    if (n < len) {
      throw new EOFException("end of " + file.path() + " after " + (pos + Math.max(n, 0)) + " bytes");
    }
  }

  @Override
  public long skip(long n) {
    checkOpen();
    long skipped = Math.max(0, Math.min(n, file.length() - position));
    position += skipped;
    return skipped;
  }

  @Override
  public int available() {
    return buffered(position) ? (int) (bufferStart + bufferLength - position) : 0;
  }

  @Override
  public void close() {
    closed = true;
  }

  private boolean buffered(long pos) {
    return pos >= bufferStart && pos < bufferStart + bufferLength;
  }

  private void fill(long pos) {
    bufferLength = 0;
    int n = positionedRead(pos, buffer, 0, buffer.length);
    bufferStart = pos;
    bufferLength = Math.max(0, n);
  }

  private void checkOpen() {
    if (closed) {
      throw StrataException.invalidArgument("stream of " + file.path() + " is closed");
    }
  }
}
