package io.strata.fuse;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Supplier;

/**
 * A file opened to change its bytes in place: read-write, for appending, or written behind its end.
 * Strata files are whole versions, so its bytes go to a spill file on this host, copied from the
 * version opened at the first change; a flush (close(2)), fsync or release publishes the spill
 * whole as the file's next version. Until the first change, reads go to the version opened and
 * nothing is copied: most programs that open read-write only read. Thread-safe.
 */
final class Update extends OpenFile {
  private final Supplier<FileInStream> opened;
  private final Path spillDir;
  private FileInStream in;
  private FileChannel spill;
  private Path spillPath;

  /** Changed since the last publish. */
  private boolean dirty;

  Update(String path, Supplier<FileInStream> opened, Path spillDir) {
    super(path);
    this.opened = opened;
    this.spillDir = spillDir;
  }

  synchronized int read(ByteBuffer dst, long offset) throws IOException {
    if (spill == null) {
      int n = stream().positionedRead(offset, dst);
      return Math.max(n, 0);
    }
    int total = 0;
    while (dst.hasRemaining()) {
      int n = spill.read(dst, offset + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  synchronized void write(ByteBuffer src, long offset) throws IOException {
    FileChannel c = spill();
    long at = offset;
    while (src.hasRemaining()) {
      at += c.write(src, at);
    }
    dirty = true;
  }

  synchronized void truncate(long size) throws IOException {
    FileChannel c = spill();
    if (size < c.size()) {
      c.truncate(size);
    } else if (size > c.size()) {
      // A hole reads as zeros, as a local file system's does.
      c.write(ByteBuffer.allocate(1), size - 1);
    }
    dirty = true;
  }

  /** The size a getattr reports while changed and not published yet; -1 when unchanged. */
  synchronized long pendingSize() {
    try {
      return dirty ? spill.size() : -1;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized boolean dirty() {
    return dirty;
  }

  /** Publishes the changed bytes as the file's next version through {@code out}. */
  synchronized void publish(Supplier<FileOutStream> out) throws IOException {
    if (!dirty) {
      return;
    }
    FileOutStream o = out.get();
    try {
      spill.position(0);
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      while (spill.read(buf) >= 0) {
        buf.flip();
        o.write(buf.array(), 0, buf.limit());
        buf.clear();
      }
    } catch (IOException | RuntimeException e) {
      o.cancel();
      throw e;
    }
    o.close();
    dirty = false;
  }

  synchronized void close() throws IOException {
    if (in != null) {
      in.close();
      in = null;
    }
    if (spill != null) {
      spill.close();
      Files.deleteIfExists(spillPath);
      spill = null;
    }
  }

  private FileInStream stream() {
    if (in == null) {
      in = opened.get();
    }
    return in;
  }

  /** The spill file, made at the first change from the version opened. */
  private FileChannel spill() throws IOException {
    if (spill != null) {
      return spill;
    }
    Files.createDirectories(spillDir);
    Path p = Files.createTempFile(spillDir, "update-", ".spill");
    FileChannel c =
        FileChannel.open(
            p,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE,
            StandardOpenOption.DELETE_ON_CLOSE);
    try {
      FileInStream from = stream();
      if (from.length() > 0) {
        from.transferTo(Channels.newOutputStream(c));
      }
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    spill = c;
    spillPath = p;
    return c;
  }
}
