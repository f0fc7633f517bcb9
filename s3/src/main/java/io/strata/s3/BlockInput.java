package io.strata.s3;

import java.io.IOException;
import java.io.InputStream;

/** An input stream whose subclasses read in blocks only; a single byte is a block of one. */
abstract class BlockInput extends InputStream {
  @Override
  public final int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public abstract int read(byte[] b, int off, int len) throws IOException;
}
