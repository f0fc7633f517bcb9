package io.strata.bench.read;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * The raw baseline for short-circuit reads: the same bytes read from local files with plain reads.
 */
record FileTarget(List<Path> files) implements ReadTarget {
  @Override
  public String name() {
    return "raw-file";
  }

  @Override
  public Session open(int file) throws IOException {
    RandomAccessFile f = new RandomAccessFile(files.get(file).toFile(), "r");
    FileChannel ch = f.getChannel();
    return new Session() {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return f.read(b, off, len);
      }

      @Override
      public void readFully(long pos, byte[] b, int off, int len) throws IOException {
        ByteBuffer dst = ByteBuffer.wrap(b, off, len);
        while (dst.hasRemaining()) {
          if (ch.read(dst, pos + dst.position() - off) < 0) {
            throw new EOFException();
          }
        }
      }

      @Override
      public void close() throws IOException {
        f.close();
      }
    };
  }
}
