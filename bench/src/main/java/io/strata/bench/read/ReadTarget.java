package io.strata.bench.read;

import java.io.Closeable;
import java.io.IOException;

/** Something to read a dataset of files from: Strata over some transport, or a raw baseline. */
public interface ReadTarget {
  String name();

  /** A reader of file {@code file} for one thread. */
  Session open(int file) throws IOException;

  /** One thread's handle on one file. */
  interface Session extends Closeable {
    /** Sequential read; -1 at the end. */
    int read(byte[] b, int off, int len) throws IOException;

    /** Exactly {@code len} bytes at {@code pos}. */
    void readFully(long pos, byte[] b, int off, int len) throws IOException;
  }
}
