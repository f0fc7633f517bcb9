package io.strata.hadoop;

import io.strata.client.FileInStream;
import io.strata.core.status.StrataException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * A Strata file as Hadoop reads one: sequential reads with seek, positioned reads (which leave the
 * position alone) into arrays and buffers, all through the client's read path (short-circuit,
 * domain socket or TCP, read-ahead). Its {@link IOStatistics} count bytes and operations under
 * Hadoop's stream statistic names, for engines that collect them per task.
 */
final class StrataInputStream extends FSInputStream
    implements ByteBufferReadable,
        ByteBufferPositionedReadable,
        StreamCapabilities,
        IOStatisticsSource {
  private final FileInStream in;
  private final FileSystem.Statistics statistics;
  private final IOStatisticsStore ioStatistics =
      IOStatisticsBinding.iostatisticsStore()
          .withCounters(
              StreamStatisticNames.STREAM_READ_BYTES,
              StreamStatisticNames.STREAM_READ_OPERATIONS,
              StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS,
              StreamStatisticNames.STREAM_READ_CLOSE_OPERATIONS)
          .build();
  private boolean closed;

  StrataInputStream(FileInStream in, FileSystem.Statistics statistics) {
    this.in = in;
    this.statistics = statistics;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED);
    }
  }

  /** One read operation that returned {@code n}: its bytes go to both kinds of statistics. */
  private int counted(int n) {
    ioStatistics.incrementCounter(StreamStatisticNames.STREAM_READ_OPERATIONS);
    if (n > 0) {
      ioStatistics.incrementCounter(StreamStatisticNames.STREAM_READ_BYTES, n);
      if (statistics != null) {
        statistics.incrementBytesRead(n);
      }
    }
    return n;
  }

  @Override
  public IOStatistics getIOStatistics() {
    return ioStatistics;
  }

  @Override
  public synchronized void seek(long pos) throws IOException {
    checkOpen();
    if (pos < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + pos);
    }
    if (pos > in.length()) {
      throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + " " + pos);
    }
    ioStatistics.incrementCounter(StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS);
    in.seek(pos);
  }

  @Override
  public synchronized long getPos() throws IOException {
    checkOpen();
    return in.getPos();
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false; // the client fails over between workers by itself
  }

  @Override
  public synchronized int read() throws IOException {
    checkOpen();
    try {
      int b = in.read();
      counted(b >= 0 ? 1 : 0);
      return b;
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    checkOpen();
    validatePositionedReadArgs(in.getPos(), b, off, len);
    if (len == 0) {
      return 0;
    }
    try {
      return counted(in.read(b, off, len));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public synchronized int read(ByteBuffer buf) throws IOException {
    checkOpen();
    if (!buf.hasRemaining()) {
      return 0;
    }
    try {
      return counted(in.read(buf));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public int read(long position, byte[] buffer, int offset, int length) throws IOException {
    checkOpen();
    validatePositionedReadArgs(position, buffer, offset, length);
    if (length == 0) {
      return 0;
    }
    if (position >= in.length()) {
      return -1;
    }
    try {
      return counted(in.positionedRead(position, buffer, offset, length));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public int read(long position, ByteBuffer buf) throws IOException {
    checkOpen();
    if (position < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + " " + position);
    }
    if (!buf.hasRemaining()) {
      return 0;
    }
    if (position >= in.length()) {
      return -1;
    }
    try {
      return counted(in.positionedRead(position, buf));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public void readFully(long position, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      int n = read(position, buf);
      if (n < 0) {
        throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY);
      }
      position += n;
    }
  }

  @Override
  public synchronized int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, in.length() - in.getPos());
  }

  @Override
  public synchronized long skip(long n) throws IOException {
    checkOpen();
    return n <= 0 ? 0 : in.skip(n);
  }

  @Override
  public boolean hasCapability(String capability) {
    return switch (capability.toLowerCase(java.util.Locale.ROOT)) {
      case StreamCapabilities.READBYTEBUFFER,
          StreamCapabilities.PREADBYTEBUFFER,
          StreamCapabilities.IOSTATISTICS ->
          true;
      default -> false;
    };
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      ioStatistics.incrementCounter(StreamStatisticNames.STREAM_READ_CLOSE_OPERATIONS);
      in.close();
    }
  }
}
