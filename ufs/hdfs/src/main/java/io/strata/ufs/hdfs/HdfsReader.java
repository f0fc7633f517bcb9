package io.strata.ufs.hdfs;

import io.strata.core.ufs.UfsReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * Positioned reads of one version of a file, through a stream shared with the other readers of that
 * version ({@link OpenStreams}). {@link #currentFingerprint} is the NameNode's answer to a look-up
 * begun after this reader's last read (shared with the other readers of the version), so that bytes
 * read are only ever taken for the version they belong to.
 */
final class HdfsReader implements UfsReader {
  /** Copies for streams without positioned reads into buffers; a reader is used by one thread. */
  private static final ThreadLocal<byte[]> CHUNKS =
      ThreadLocal.withInitial(() -> new byte[64 << 10]);

  private final OpenStreams.Shared stream;
  private final Runs runs;
  private final long length;
  private final FingerprintSource now;
  private long readEndedNanos = System.nanoTime();
  private boolean closed;

  /** What the store says the file's fingerprint is now. */
  interface FingerprintSource {
    String get() throws IOException;
  }

  /** Streams of this version for runs read in order: continued where the last run ended. */
  interface Runs {
    /** A stream positioned at {@code position}: the one parked there, or one opened. */
    FSDataInputStream resume(long position) throws IOException;

    /** Keeps {@code in}, positioned at {@code position}, for the next run. */
    void park(long position, FSDataInputStream in);
  }

  HdfsReader(OpenStreams.Shared stream, Runs runs, long length, FingerprintSource now) {
    this.stream = stream;
    this.runs = runs;
    this.length = length;
    this.now = now;
  }

  @Override
  public int readFully(long position, ByteBuffer dst) throws IOException {
    int want = (int) Math.min(dst.remaining(), Math.max(0, length - position));
    FSDataInputStream in = stream.in;
    boolean direct = in.hasCapability(StreamCapabilities.PREADBYTEBUFFER);
    int done = 0;
    while (done < want) {
      int n;
      if (direct) {
        ByteBuffer slice = dst.duplicate();
        slice.limit(slice.position() + want - done);
        n = in.read(position + done, slice);
        if (n > 0) {
          dst.position(dst.position() + n);
        }
      } else {
        byte[] chunk = CHUNKS.get();
        n = in.read(position + done, chunk, 0, Math.min(chunk.length, want - done));
        if (n > 0) {
          dst.put(chunk, 0, n);
        }
      }
      if (n <= 0) {
        break; // the end of the file as the stream knows it
      }
      done += n;
    }
    readEndedNanos = System.nanoTime();
    return done;
  }

  /**
   * Several buffers in one DataNode read operation: a stream of their own, read in order from
   * {@code position} (a pread per buffer would start an operation each, and copying one large pread
   * into the buffers would cost a copy of every byte). The stream the run before left parked where
   * this one starts is continued; else one is opened (a NameNode call). Left parked at the end for
   * the next run.
   */
  @Override
  public long readFully(long position, ByteBuffer[] dsts) throws IOException {
    if (dsts.length == 1) {
      return readFully(position, dsts[0]);
    }
    long wanted = 0;
    for (ByteBuffer d : dsts) {
      wanted += d.remaining();
    }
    long want = Math.min(wanted, Math.max(0, length - position));
    FSDataInputStream in = runs.resume(position);
    long done = 0;
    boolean whole = false;
    try {
      done = readInOrder(in, dsts, want);
      whole = done == want;
    } finally {
      readEndedNanos = System.nanoTime();
      if (whole && position + done < length) {
        runs.park(position + done, in);
      } else {
        ParkedStreams.closeQuietly(in);
      }
    }
    return done;
  }

  /** Reads up to {@code want} bytes from {@code in} into {@code dsts}, in order, as they fill. */
  private static long readInOrder(FSDataInputStream in, ByteBuffer[] dsts, long want)
      throws IOException {
    boolean direct = in.hasCapability(StreamCapabilities.READBYTEBUFFER);
    long done = 0;
    for (ByteBuffer dst : dsts) {
      while (dst.hasRemaining() && done < want) {
        int n;
        if (direct) {
          ByteBuffer slice = dst.duplicate();
          slice.limit((int) Math.min(slice.limit(), slice.position() + want - done));
          n = in.read(slice);
          if (n > 0) {
            dst.position(dst.position() + n);
          }
        } else {
          byte[] chunk = CHUNKS.get();
          n =
              in.read(
                  chunk, 0, (int) Math.min(Math.min(chunk.length, dst.remaining()), want - done));
          if (n > 0) {
            dst.put(chunk, 0, n);
          }
        }
        if (n <= 0) {
          return done; // the end of the file as the stream knows it
        }
        done += n;
      }
    }
    return done;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public String currentFingerprint() throws IOException {
    return stream.fingerprintAfter(readEndedNanos, now);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      stream.release();
    }
  }
}
