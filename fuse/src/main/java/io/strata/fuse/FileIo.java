package io.strata.fuse;

import com.kenai.jffi.MemoryIO;
import io.strata.client.FileInStream;
import java.nio.ByteBuffer;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves bytes between the kernel's buffers and open files: reads go straight into the kernel's
 * buffer, writes through one reusable array per FUSE thread (no allocation per call). Bytes on this
 * host's disk are read from there; otherwise a read that continues where the previous one ended
 * goes through the file's stream, and any other read is a positioned read.
 */
final class FileIo {
  private static final Logger LOG = LoggerFactory.getLogger(FileIo.class);
  private static final long STREAM_WINDOW = 8 << 20;
  private final ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[128 << 10]);

  private byte[] buffer(int size) {
    byte[] b = buffers.get();
    if (b.length < size) {
      b = new byte[size];
      buffers.set(b);
    }
    return b;
  }

  /**
   * Reads up to {@code size} bytes at {@code offset} into {@code buf}; fewer only at end of file.
   */
  int read(OpenFile.Reader r, Pointer buf, int size, long offset) {
    if (!buf.isDirect()) {
      byte[] b = buffer(size);
      int n = read(r, ByteBuffer.wrap(b, 0, size), offset);
      buf.put(0, b, 0, n);
      return n;
    }
    // The kernel's buffer itself: streamed bytes go from the socket straight into it.
    return read(r, MemoryIO.getInstance().newDirectByteBuffer(buf.address(), size), offset);
  }

  private static int read(OpenFile.Reader r, ByteBuffer dst, long offset) {
    // Pages on this host's disk are copied from the mapped segment files with no lock: the
    // kernel's concurrent read-ahead requests for one file then proceed in parallel, as they do on
    // a local file system.
    int n = r.stream().readLocal(offset, dst);
    if (n >= 0) {
      r.lastEnd = offset + n;
      return n;
    }
    synchronized (r) {
      FileInStream in = r.stream();
      long pos = in.getPos();
      // The kernel sends read-ahead requests from several threads, a little out of order: one a
      // short way ahead of the stream still goes through it and its read-ahead.
      if (offset == r.lastEnd || (offset >= pos && offset - pos <= STREAM_WINDOW)) {
        in.seek(offset);
        n = readFully(in, dst);
      }
    }
    if (n < 0) {
      n = Math.max(0, r.stream().positionedRead(offset, dst));
    }
    r.lastEnd = offset + n;
    if (dst.hasRemaining() && offset + n < r.stream().length()) {
      // The kernel takes a short reply for the end of the file, and cuts the file there.
      LOG.warn(
          "read {} at {}: {} of {} bytes, before the end ({})",
          r.path,
          offset,
          n,
          dst.limit(),
          r.stream().length());
    }
    return n;
  }

  private static int readFully(FileInStream in, ByteBuffer dst) {
    while (dst.hasRemaining()) {
      if (in.read(dst) < 0) {
        break;
      }
    }
    return dst.position();
  }

  /** Appends {@code n} zero bytes: a hole, as a local file system reads it. */
  void writeZeros(OpenFile.Writer w, long n) {
    byte[] zeros = new byte[(int) Math.min(n, 1 << 20)];
    for (long left = n; left > 0; left -= zeros.length) {
      w.out().write(zeros, 0, (int) Math.min(left, zeros.length));
    }
  }

  /** Reads from a file open to change in place: its copy once changed, else the version opened. */
  int read(Update u, Pointer buf, int size, long offset) {
    if (!buf.isDirect()) {
      byte[] b = buffer(size);
      int n = u.read(ByteBuffer.wrap(b, 0, size), offset);
      buf.put(0, b, 0, n);
      return n;
    }
    return u.read(MemoryIO.getInstance().newDirectByteBuffer(buf.address(), size), offset);
  }

  /** Writes to a file open to change in place, through this thread's array. */
  void write(Update u, Pointer buf, int size, long offset) {
    byte[] b = buffer(size);
    buf.get(0, b, 0, size);
    u.write(ByteBuffer.wrap(b, 0, size), offset);
  }

  void write(OpenFile.Writer w, Pointer buf, int size) {
    byte[] b = buffer(size);
    buf.get(0, b, 0, size);
    w.out().write(b, 0, size);
  }
}
