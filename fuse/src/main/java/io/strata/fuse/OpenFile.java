package io.strata.fuse;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import java.util.function.Supplier;

/** One file opened through the mount: a reader, or a writer that appends front to back. */
abstract class OpenFile {
  final String path;

  OpenFile(String path) {
    this.path = path;
  }

  /**
   * A reader. Reads at the stream's position go through it, so read-ahead serves sequential
   * readers; reads elsewhere are positioned reads, which may run in parallel. The stream is opened
   * at the first read: a kernel that serves the file from its page cache never asks, and an open
   * then costs no round trip at all.
   */
  static final class Reader extends OpenFile {
    private final Supplier<FileInStream> opener;
    private FileInStream in;

    /** The version read, as the kernel view counts its readers; null if it does not count it. */
    final KernelView.Reading reading;

    /** Where the last read ended: the next one starting there is sequential. */
    volatile long lastEnd = -1;

    Reader(String path, KernelView.Reading reading, Supplier<FileInStream> opener) {
      super(path);
      this.reading = reading;
      this.opener = opener;
    }

    synchronized FileInStream stream() {
      if (in == null) {
        in = opener.get();
      }
      return in;
    }

    synchronized void close() {
      if (in != null) {
        in.close();
      }
    }
  }

  /** A writer: bytes must come in order; the file appears in the UFS when it is committed. */
  static final class Writer extends OpenFile {
    final FileOutStream out;
    final int mode;
    final long createdMs = System.currentTimeMillis();
    long written;
    boolean committed;

    Writer(String path, FileOutStream out, int mode) {
      super(path);
      this.out = out;
      this.mode = mode;
    }
  }
}
