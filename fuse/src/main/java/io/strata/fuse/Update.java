package io.strata.fuse;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.core.util.FileChannels;
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
 * nothing is copied: most programs that open read-write only read. I/O errors of the spill file are
 * thrown unchecked, as the client's are. Thread-safe.
 */
final class Update extends OpenFile {
  private final Supplier<FileInStream> opened;
  private final Path spillDir;
  private FileInStream in;
  private FileChannel spill;

  /** Changed since the last publish. */
  private boolean dirty;

  Update(String path, Supplier<FileInStream> opened, Path spillDir) {
    super(path);
    this.opened = opened;
    this.spillDir = spillDir;
  }

  synchronized int read(ByteBuffer dst, long offset) {
    if (spill == null) {
      int n = stream().positionedRead(offset, dst);
      return Math.max(n, 0);
    }
    try {
      return FileChannels.readFully(spill, offset, dst);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized void write(ByteBuffer src, long offset) {
    try {
      FileChannel c = spill();
      long at = offset;
      while (src.hasRemaining()) {
        at += c.write(src, at);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    dirty = true;
  }

  synchronized void truncate(long size) {
    try {
      FileChannel c = spill();
      if (size < c.size()) {
        c.truncate(size);
      } else if (size > c.size()) {
        // A hole reads as zeros, as a local file system's does.
        c.write(ByteBuffer.allocate(1), size - 1);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    dirty = true;
  }

  /** The size the file has for this open file: its copy's, made now if not yet. */
  synchronized long size() {
    try {
      return spill().size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
  synchronized void publish(Supplier<FileOutStream> out) {
    if (!dirty) {
      return;
    }
    FileOutStream o = out.get();
    try {
      spill.position(0);
      Channels.newInputStream(spill).transferTo(o);
    } catch (IOException e) {
      o.cancel();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      o.cancel();
      throw e;
    }
    o.close();
    dirty = false;
  }

  /** Closes the version opened and the spill file, which its closing deletes. */
  synchronized void close() {
    if (in != null) {
      in.close();
      in = null;
    }
    if (spill != null) {
      try {
        spill.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        spill = null;
      }
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
    SpillFolder.ensure(spillDir);
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
    return c;
  }
}
