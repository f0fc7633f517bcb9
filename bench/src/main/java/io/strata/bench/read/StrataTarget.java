package io.strata.bench.read;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import java.util.List;

/** Files read through a Strata client. */
record StrataTarget(String name, FileSystem fs, List<String> files) implements ReadTarget {
  @Override
  public Session open(int file) {
    FileInStream in = fs.open(files.get(file));
    return new Session() {
      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, len);
      }

      @Override
      public void readFully(long pos, byte[] b, int off, int len) throws java.io.EOFException {
        in.readFully(pos, b, off, len);
      }

      @Override
      public void close() {
        in.close();
      }
    };
  }
}
