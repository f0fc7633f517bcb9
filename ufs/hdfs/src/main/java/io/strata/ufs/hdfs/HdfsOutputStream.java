package io.strata.ufs.hdfs;

import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * A file written under a temporary name beside its final one ({@code .strata-NAME.UUID.tmp}, hidden
 * from listings), then renamed into place on close: readers see the old file or the whole new one.
 * Nothing exists in the store before the first byte or the close, so the token can be noted first.
 */
final class HdfsOutputStream extends UfsOutputStream {
  static final String TEMP_PREFIX = ".strata-";
  static final String TEMP_SUFFIX = ".tmp";

  /** HDFS's default limit on a name's length (dfs.namenode.fs-limits.max-component-length). */
  private static final int MAX_NAME_BYTES = 255;

  /** What the stream needs of its under-storage. */
  interface Store {
    FSDataOutputStream createTemp(Path temp, FsPermission permission) throws IOException;

    /** Renames the written file into place; returns its status there. */
    UfsStatus publish(Path temp, Path target, boolean overwrite) throws IOException;

    void deleteQuietly(Path temp);
  }

  private final Store store;
  private final Path target;
  private final Path temp;
  private final boolean overwrite;
  private final boolean sync;
  private final FsPermission permission;
  private FSDataOutputStream out;
  private long written;
  private boolean done;
  private UfsStatus published;

  HdfsOutputStream(
      Store store, Path target, boolean overwrite, boolean sync, FsPermission permission) {
    this.store = store;
    this.target = target;
    this.overwrite = overwrite;
    this.sync = sync;
    this.permission = permission;
    this.temp = new Path(target.getParent(), tempName(target.getName()));
  }

  static boolean isTemp(String name) {
    return name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX);
  }

  private static String tempName(String name) {
    String unique = "." + UUID.randomUUID() + TEMP_SUFFIX;
    String named = TEMP_PREFIX + name + unique;
    return named.getBytes(StandardCharsets.UTF_8).length <= MAX_NAME_BYTES
        ? named
        : TEMP_PREFIX + unique.substring(1);
  }

  private FSDataOutputStream out() throws IOException {
    if (done) {
      throw new IOException("the write of " + target + " has ended");
    }
    if (out == null) {
      out = store.createTemp(temp, permission);
    }
    return out;
  }

  @Override
  public void write(int b) throws IOException {
    out().write(b);
    written++;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out().write(b, off, len);
    written += len;
  }

  @Override
  public void close() throws IOException {
    if (done) {
      return;
    }
    try {
      FSDataOutputStream o = out();
      if (sync) {
        o.hsync(); // on the DataNodes' disks, not only in their memory, before it is published
      }
      o.close();
      done = true;
      published = store.publish(temp, target, overwrite);
    } catch (IOException | RuntimeException e) {
      abort();
      throw e;
    }
  }

  @Override
  public void abort() {
    done = true;
    if (out != null) {
      try {
        out.close();
      } catch (IOException | RuntimeException e) {
        // Discarded below either way.
      }
    }
    store.deleteQuietly(temp);
  }

  @Override
  public String token() {
    return temp.toUri().getPath();
  }

  @Override
  public long bytesWritten() {
    return written;
  }

  @Override
  public UfsStatus published() {
    return published;
  }
}
