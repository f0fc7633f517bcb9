package io.strata.core.ufs;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The extended attributes of the user namespace of a local entry, through the JDK's user-defined
 * attribute view (whose names leave out the "user." prefix), never following a link: Linux keeps no
 * user attributes on links, and answers EPERM for them.
 *
 * <p>The view opens the entry for reading, and an open of a FIFO waits for a writer: a user who
 * made one (or swapped a file for one) and asked for its attributes held a worker thread until
 * restart, sixteen of them every metadata call of the cluster (issue 78). So the entry is {@link
 * Pinned} first, and only a regular file or a folder, the only entries Linux keeps user attributes
 * on, is opened, through the pin.
 */
final class LocalXattrs {
  private LocalXattrs() {}

  static Map<String, byte[]> read(Path p, String path) throws IOException {
    try (Pinned entry = Pinned.of(p)) {
      if (!keepsAttributes(entry)) {
        return Map.of();
      }
      UserDefinedFileAttributeView view = view(entry.path(), path);
      Map<String, byte[]> out = new TreeMap<>();
      try {
        for (String name : view.list()) {
          ByteBuffer value = ByteBuffer.allocate(view.size(name));
          view.read(name, value);
          out.put(Xattrs.USER + name, Arrays.copyOf(value.array(), value.position()));
        }
      } catch (FileSystemException e) {
        throw unsupportedOr(e, path);
      }
      return out;
    }
  }

  static void write(Path p, String path, String name, byte[] value) throws IOException {
    try (Pinned entry = Pinned.of(p)) {
      if (!keepsAttributes(entry)) {
        throw new StrataException(
            StatusCode.NOT_PERMITTED,
            path
                + (entry.attributes().isSymbolicLink()
                    ? " is a symbolic link: it has no user attributes"
                    : " is neither a file nor a folder: it has no user attributes"));
      }
      UserDefinedFileAttributeView view = view(entry.path(), path);
      String bare = name.substring(Xattrs.USER.length());
      try {
        if (value == null) {
          view.delete(bare);
        } else {
          view.write(bare, ByteBuffer.wrap(value));
        }
      } catch (FileSystemException e) {
        if (e.getReason() != null && e.getReason().contains("No data available")) {
          throw StrataException.notFound(path + " has no attribute " + name);
        }
        throw unsupportedOr(e, path);
      }
    }
  }

  /**
   * Copies the user attributes of the regular file {@code from}, if there is one, to {@code to}.
   */
  static void carryOver(Path from, Path to) throws IOException {
    Pinned source;
    try {
      source = Pinned.of(from);
    } catch (NoSuchFileException e) {
      return;
    }
    try (source) {
      if (!source.attributes().isRegularFile()) {
        return;
      }
      // The new file too is pinned and must be regular: a name swapped for a FIFO would block the
      // open that writing its attributes makes.
      try (Pinned dest = Pinned.of(to)) {
        if (dest.attributes().isRegularFile()) {
          copy(source.path(), dest.path());
        }
      }
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    UserDefinedFileAttributeView in =
        Files.getFileAttributeView(from, UserDefinedFileAttributeView.class);
    UserDefinedFileAttributeView target =
        Files.getFileAttributeView(to, UserDefinedFileAttributeView.class);
    if (in == null || target == null) {
      return;
    }
    try {
      for (String name : in.list()) {
        ByteBuffer value = ByteBuffer.allocate(in.size(name));
        in.read(name, value);
        target.write(name, value.flip());
      }
    } catch (FileSystemException e) {
      // A file system without user attributes has none to keep.
      if (e.getReason() == null || !e.getReason().contains("not supported")) {
        throw e;
      }
    }
  }

  /** A regular file or a folder: what Linux keeps user attributes on. */
  private static boolean keepsAttributes(Pinned entry) {
    return entry.attributes().isRegularFile() || entry.attributes().isDirectory();
  }

  private static UserDefinedFileAttributeView view(Path p, String path) {
    UserDefinedFileAttributeView view =
        Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
    if (view == null) {
      throw new StrataException(
          StatusCode.NOT_PERMITTED,
          "the under-storage keeps no extended attributes (" + path + ")");
    }
    return view;
  }

  /** A file system without user attributes says so; anything else is the entry's own error. */
  private static IOException unsupportedOr(FileSystemException e, String path) {
    if (e.getReason() != null && e.getReason().contains("not supported")) {
      throw new StrataException(
          StatusCode.NOT_PERMITTED,
          "the under-storage's file system keeps no extended attributes (" + path + ")");
    }
    return e;
  }
}
