package io.strata.core.ufs;

import io.strata.core.status.IoErrors;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * Writes to a hidden temporary file beside the target and renames it over the target on close:
 * readers see the old file or the whole new one, never a part.
 */
final class LocalOutputStream extends UfsOutputStream {
  private static final String TEMP_PREFIX = ".strata-";
  private static final String TEMP_SUFFIX = ".tmp";

  private final Path target;
  private final Path temp;
  private final String displayPath;
  private final CreateOptions options;
  private final OutputStream out;
  private long written;
  private boolean finished;

  private LocalOutputStream(Path target, Path temp, String displayPath, CreateOptions options)
      throws IOException {
    this.target = target;
    this.temp = temp;
    this.displayPath = displayPath;
    this.options = options;
    this.out = Files.newOutputStream(temp);
  }

  static LocalOutputStream open(Path target, String displayPath, CreateOptions options)
      throws IOException {
    Path temp =
        target.resolveSibling(
            TEMP_PREFIX + target.getFileName() + "." + UUID.randomUUID() + TEMP_SUFFIX);
    return new LocalOutputStream(target, temp, displayPath, options);
  }

  /** Whether a name is one of our in-progress files, hidden from listings. */
  static boolean isTemporary(String name) {
    return name.startsWith(TEMP_PREFIX) && name.endsWith(TEMP_SUFFIX);
  }

  @Override
  public void write(int b) throws IOException {
    out.write(b);
    written++;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    written += len;
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
    finished = true;
    try {
      out.close();
      if (options.mode() != 0) {
        Files.setPosixFilePermissions(temp, PosixModes.permissions(options.mode()));
      }
      if (options.overwrite()) {
        moveReplacing();
      } else {
        // Linking refuses an existing target atomically, unlike rename(2).
        Files.createLink(target, temp);
        Files.delete(temp);
      }
    } catch (FileAlreadyExistsException e) {
      deleteTemp();
      throw StrataException.alreadyExists(displayPath + " already exists");
    } catch (IOException | RuntimeException e) {
      deleteTemp();
      throw e instanceof IOException io ? IoErrors.toStrata(io, displayPath) : (RuntimeException) e;
    }
  }

  private void moveReplacing() throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Override
  public void abort() {
    if (finished) {
      return;
    }
    finished = true;
    try {
      out.close();
    } catch (IOException ignored) {
      // The temporary file is deleted below; nothing of it is kept.
    }
    deleteTemp();
  }

  private void deleteTemp() {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException ignored) {
      // A leftover temporary file is hidden from listings and harmless.
    }
  }
}
