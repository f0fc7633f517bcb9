package io.strata.core.ufs;

import io.strata.core.status.IoErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * A new version of an existing local file written into the file itself: its inode, links, mode and
 * owner stay, as programs that update a file in place (SQLite checks that its database file was not
 * moved) expect. Bytes go over the old ones from the start; close cuts the file to what was written
 * and forces it to the device. Not atomic: a reader of the folder, or a crash, can see the file
 * part rewritten, and {@link #abort} cannot undo what was written (readers through Strata see a new
 * fingerprint and never mix versions).
 */
final class LocalInPlaceStream extends UfsOutputStream {
  /** The token of such a write: nothing to discard if its writer dies. */
  static final String TOKEN_PREFIX = "in-place:";

  private final Path target;
  private final String displayPath;
  private final boolean sync;
  private final Closeable held;
  private FileChannel channel;

  /** The identity (device, inode) of the file the channel opened. */
  private Object opened;

  private long written;
  private boolean finished;
  private UfsStatus published;

  LocalInPlaceStream(Path target, String displayPath, boolean sync, Closeable held) {
    this.target = target;
    this.displayPath = displayPath;
    this.sync = sync;
    this.held = held;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    FileChannel out = channel();
    ByteBuffer bytes = ByteBuffer.wrap(b, off, len);
    long at = written;
    while (bytes.hasRemaining()) {
      at += out.write(bytes, at);
    }
    written = at;
  }

  private FileChannel channel() throws IOException {
    if (finished) {
      throw new IOException(displayPath + ": the write has ended");
    }
    if (channel == null) {
      // No CREATE: a file removed meanwhile is not made again under its name. Pinned: a link or a
      // FIFO put in the file's place since the write began is refused, neither written nor waited
      // on.
      try (Pinned file = Pinned.of(target)) {
        channel = file.openFile(displayPath, StandardOpenOption.WRITE);
        opened = file.attributes().fileKey();
      }
    }
    return channel;
  }

  @Override
  public String token() {
    return TOKEN_PREFIX + displayPath;
  }

  @Override
  public long bytesWritten() {
    return written;
  }

  @Override
  public void close() throws IOException {
    if (finished) {
      return;
    }
    try (held) {
      FileChannel out = channel();
      finished = true;
      try (out) {
        out.truncate(written);
        if (sync) {
          out.force(true);
        }
        // Looked at while the channel still holds the inode: a file another writer renamed over
        // this one meanwhile is not the version written here, and its status must not name
        // these bytes (they would be cached under its fingerprint).
        UfsStatus now = LocalAttributes.status(target.getFileName().toString(), target);
        if (!Objects.equals(fileKey(), opened) || now.length() != written) {
          throw new StrataException(
              StatusCode.FAILED_PRECONDITION,
              displayPath + " was replaced by another writer while written in place");
        }
        published = now;
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, displayPath);
    }
  }

  private Object fileKey() throws IOException {
    return Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  @Override
  public UfsStatus published() {
    if (published == null) {
      throw new IllegalStateException(displayPath + " is not published");
    }
    return published;
  }

  @Override
  public void abort() {
    if (finished) {
      return;
    }
    finished = true;
    try (held) {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      // What was written stays (see the class comment); nothing else to let go of.
    }
  }
}
