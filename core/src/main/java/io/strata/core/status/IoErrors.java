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
    if (reason.contains("Operation not permitted")) {
      return new StrataException(StatusCode.NOT_PERMITTED, "operation not permitted: " + path, e);
    }
    if (reason.contains("File name too long")) {
      return new StrataException(StatusCode.NAME_TOO_LONG, "file name too long: " + path, e);
    }
    if (reason.contains("Too many links")) {
      return new StrataException(StatusCode.TOO_MANY_LINKS, "too many links: " + path, e);
    }
    if (reason.contains("Invalid cross-device link")) {
      return new StrataException(StatusCode.CROSS_DEVICE, "across devices: " + path, e);
    }
    if (reason.contains("Directory not empty")) {
      return new StrataException(
          StatusCode.DIRECTORY_NOT_EMPTY, path + " is a non-empty directory", e);
    }
    if (reason.contains("Is a directory")) {
      return new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory", e);
    }
    if (reason.contains("Not a directory")) {
      return new StrataException(StatusCode.NOT_A_DIRECTORY, path + " is not a directory", e);
    }
    if (reason.contains("Invalid argument")) {
      return StrataException.invalidArgument("invalid argument: " + path);
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
