package io.strata.core.status;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Turns the JDK's file-system exceptions into Strata's status codes, naming the Strata path. */
public final class IoErrors {
  private IoErrors() {}

  public static StrataException toStrata(IOException e, String path) {
    if (e instanceof NoSuchFileException) {
      return new StrataException(StatusCode.NOT_FOUND, path + " does not exist", e);
    }
    if (e instanceof FileAlreadyExistsException) {
      return new StrataException(StatusCode.ALREADY_EXISTS, path + " already exists", e);
    }
    if (e instanceof DirectoryNotEmptyException) {
      return new StrataException(
          StatusCode.DIRECTORY_NOT_EMPTY, path + " is a non-empty directory", e);
    }
    if (e instanceof NotDirectoryException) {
      return new StrataException(StatusCode.NOT_A_DIRECTORY, path + " is not a directory", e);
    }
    if (e instanceof AccessDeniedException) {
      return new StrataException(StatusCode.PERMISSION_DENIED, "permission denied: " + path, e);
    }
    String reason =
        e instanceof FileSystemException fse && fse.getReason() != null
            ? fse.getReason()
            : String.valueOf(e.getMessage());
    if (reason.contains("No space left")) {
      return new StrataException(StatusCode.RESOURCE_EXHAUSTED, "no space left writing " + path, e);
    }
    if (reason.contains("Read-only file system")) {
      return new StrataException(StatusCode.PERMISSION_DENIED, "read-only file system: " + path, e);
    }
    return new StrataException(StatusCode.INTERNAL, "I/O error on " + path + ": " + reason, e);
  }

  public static StrataException toStrata(UncheckedIOException e, String path) {
    return toStrata(e.getCause(), path);
  }
}
