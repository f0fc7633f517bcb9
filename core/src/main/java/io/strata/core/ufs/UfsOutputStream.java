package io.strata.core.ufs;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A file being written to the UFS. Bytes go to a temporary name; {@link #close()} publishes the
 * file under its final name (atomically where the UFS allows), {@link #abort()} discards it, so
 * that no reader ever sees a partial file under the final name.
 */
public abstract class UfsOutputStream extends OutputStream {
  /** Discards everything written; the final name is left as it was. Idempotent. */
  public abstract void abort();

  /**
   * Names what this write leaves in the under-storage until it ends (for a local folder, its
   * temporary file), for {@link UnderFileSystem#discard} after the writer died. Known before the
   * first byte: nothing of the write exists in the under-storage until the first write or {@link
   * #close()}, so a caller that notes the token first never loses track of what a crash leaves.
   */
  public abstract String token();

  /** Bytes written so far. */
  public abstract long bytesWritten();

  /** Publishes the file; throws ALREADY_EXISTS if it appeared meanwhile and overwrite was off. */
  @Override
  public abstract void close() throws IOException;

  /**
   * After {@link #close()}: the status of the file this stream published, its fingerprint naming
   * exactly the bytes written (not whatever another writer may have put under the name since).
   */
  public abstract UfsStatus published();
}
