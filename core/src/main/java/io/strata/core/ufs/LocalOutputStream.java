package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StrataException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.UUID;

/**
 * Writes to a hidden temporary file beside the target and renames it over the target on close:
 * readers see the old file or the whole new one, never a part. The temporary file is created at the
 * first write (or at close, for an empty file), so that a caller can note the {@link #token()}
 * before anything of the write exists. With {@link CreateOptions#sync} the bytes are forced to the
 * device before the rename and the folder after it, so that after a power loss the final name holds
 * the old file or the whole new one too.
 */
final class LocalOutputStream extends UfsOutputStream {
  private static final String TEMP_PREFIX = ".strata-";
  private static final String TEMP_SUFFIX = ".tmp";

  /** The longest file name Linux file systems take, in bytes. */
  private static final int MAX_NAME_BYTES = 255;

  private final Path target;
  private final Path temp;
  private final String token;
  private final String displayPath;
  private final CreateOptions options;
  private final Closeable held;
  private FileChannel channel;
  private long written;
  private boolean finished;
  private UfsStatus published;

  private LocalOutputStream(
      Path target,
      Path temp,
      String token,
      String displayPath,
      CreateOptions options,
      Closeable held) {
    this.target = target;
    this.temp = temp;
    this.token = token;
    this.displayPath = displayPath;
    this.options = options;
    this.held = held;
  }

  /**
   * @param target where the file goes, as the kernel takes it
   * @param path the same, relative to the under-storage root (its temporary file's token is too)
   * @param held what keeps {@code target} usable (its folder's descriptor), closed when the write
   *     ends
   */
  static LocalOutputStream open(
      Path target, StrataPath path, CreateOptions options, Closeable held) {
    Path temp = tempFor(target);
    String folder = path.parent().isRoot() ? "" : path.parent().toString();
    return new LocalOutputStream(
        target, temp, folder + "/" + temp.getFileName(), path.toString(), options, held);
  }

  /**
   * A hidden name beside {@code target}, unique to this writer: the target's name in it while that
   * fits in a file name, else the unique part alone.
   */
  static Path tempFor(Path target) {
    String unique = "." + UUID.randomUUID() + TEMP_SUFFIX;
    String named = TEMP_PREFIX + target.getFileName() + unique;
    boolean fits = named.getBytes(StandardCharsets.UTF_8).length <= MAX_NAME_BYTES;
    return target.resolveSibling(fits ? named : TEMP_PREFIX + unique.substring(1));
  }

  /** Whether a name is one of our in-progress files, hidden from listings. */
  static boolean isTemporary(String name) {
    return name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX);
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(b, off, len);
    FileChannel out = channel();
    while (bytes.hasRemaining()) {
      out.write(bytes);
    }
    written += len;
  }

  private FileChannel channel() throws IOException {
    if (finished) {
      throw new IOException(displayPath + ": the write has ended");
    }
    if (channel == null) {
      // Owner-only while it is written: its mode comes at close ({@link #finalMode}).
      channel =
          FileChannel.open(
              temp,
              Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    return channel;
  }

  @Override
  public String token() {
    return token;
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
      publish();
    }
  }

  private void publish() throws IOException {
    try {
      FileChannel out = channel();
      finished = true;
      if (options.sync()) {
        out.force(true);
      }
      out.close();
      // Owner before mode: a chown clears the setuid and setgid bits.
      if (options.uid() >= 0) {
        Files.setAttribute(temp, "unix:uid", (int) options.uid(), LinkOption.NOFOLLOW_LINKS);
      }
      if (options.gid() >= 0) {
        Files.setAttribute(temp, "unix:gid", (int) options.gid(), LinkOption.NOFOLLOW_LINKS);
      }
      PosixCalls.chmod(temp, finalMode());
      // A rename keeps the file's inode, length and times: this is the published version.
      UfsStatus status = LocalAttributes.status(target.getFileName().toString(), temp);
      if (options.overwrite()) {
        // A file written anew keeps its attributes, as a truncate and write would.
        LocalXattrs.carryOver(target, temp);
        moveReplacing();
      } else {
        // Linking refuses an existing target atomically, unlike rename(2).
        Files.createLink(target, temp);
        Files.delete(temp);
      }
      if (options.sync()) {
        syncFolder(target.getParent());
      }
      published = status;
    } catch (FileAlreadyExistsException e) {
      deleteTemp();
      throw StrataException.alreadyExists(displayPath + " already exists");
    } catch (IOException | RuntimeException e) {
      deleteTemp();
      throw e instanceof IOException io ? IoErrors.toStrata(io, displayPath) : (RuntimeException) e;
    }
  }

  /**
   * The mode the published file gets: the one asked for; else, over an existing file, that file's
   * (a 0600 file rewritten stays 0600, as a truncate and write would leave it); else what a new
   * file gets from this process's umask.
   */
  private int finalMode() throws IOException {
    if (options.mode() != 0) {
      return options.mode();
    }
    if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      return (int) Files.getAttribute(target, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0777;
    }
    return 0666 & ~Umask.current();
  }

  @Override
  public UfsStatus published() {
    if (published == null) {
      throw new IllegalStateException(displayPath + " is not published");
    }
    return published;
  }

  private void moveReplacing() throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Makes a rename in {@code folder} durable. */
  private static void syncFolder(Path folder) throws IOException {
    try (FileChannel dir = FileChannel.open(folder, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  @Override
  public void abort() {
    if (finished) {
      return;
    }
    finished = true;
    try (held) {
      if (channel == null) {
        return;
      }
      try {
        channel.close();
      } catch (IOException ignored) {
        // The temporary file is deleted below; nothing of it is kept.
      }
      deleteTemp();
    } catch (IOException e) {
      // Letting go of a folder descriptor: nothing of the write depends on it.
    }
  }

  private void deleteTemp() {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException ignored) {
      // Removed later by age (LocalUnderFileSystem.removeStaleTemporaries), hidden meanwhile.
    }
  }
}
