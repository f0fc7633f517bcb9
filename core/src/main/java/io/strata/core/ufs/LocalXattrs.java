package io.strata.core.ufs;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The extended attributes of the user namespace of a local entry, through the JDK's user-defined
 * attribute view (whose names leave out the "user." prefix), never following a link: Linux keeps no
 * user attributes on links, and answers EPERM for them.
 */
final class LocalXattrs {
  private LocalXattrs() {}

  static Map<String, byte[]> read(Path p, String path) throws IOException {
    UserDefinedFileAttributeView view = view(p, path);
    Map<String, byte[]> out = new TreeMap<>();
    try {
      for (String name : view.list()) {
        ByteBuffer value = ByteBuffer.allocate(view.size(name));
        view.read(name, value);
        out.put(Xattrs.USER + name, Arrays.copyOf(value.array(), value.position()));
      }
    } catch (FileSystemException e) {
      if (isLink(p)) {
        return Map.of();
      }
      throw unsupportedOr(e, path);
    }
    return out;
  }

  static void write(Path p, String path, String name, byte[] value) throws IOException {
    UserDefinedFileAttributeView view = view(p, path);
    String bare = name.substring(Xattrs.USER.length());
    try {
      if (value == null) {
        view.delete(bare);
      } else {
        view.write(bare, ByteBuffer.wrap(value));
      }
    } catch (FileSystemException e) {
      if (isLink(p)) {
        throw new StrataException(
            StatusCode.NOT_PERMITTED, path + " is a symbolic link: it has no user attributes");
      }
      if (e.getReason() != null && e.getReason().contains("No data available")) {
        throw StrataException.notFound(path + " has no attribute " + name);
      }
      throw unsupportedOr(e, path);
    }
  }

  /**
   * Copies the user attributes of the regular file {@code from}, if there is one, to {@code to}.
   */
  static void carryOver(Path from, Path to) throws IOException {
    if (!Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    UserDefinedFileAttributeView source =
        Files.getFileAttributeView(
            from, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    UserDefinedFileAttributeView target =
        Files.getFileAttributeView(
            to, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (source == null || target == null) {
      return;
    }
    try {
      for (String name : source.list()) {
        ByteBuffer value = ByteBuffer.allocate(source.size(name));
        source.read(name, value);
        target.write(name, value.flip());
      }
    } catch (FileSystemException e) {
      // A file system without user attributes has none to keep; the file replaced may be gone.
      if (e.getReason() == null || !e.getReason().contains("not supported")) {
        if (Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
          throw e;
        }
      }
    }
  }

  private static UserDefinedFileAttributeView view(Path p, String path) {
    UserDefinedFileAttributeView view =
        Files.getFileAttributeView(
            p, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (view == null) {
      throw new StrataException(
          StatusCode.NOT_PERMITTED,
          "the under-storage keeps no extended attributes (" + path + ")");
    }
    return view;
  }

  private static boolean isLink(Path p) {
    return Files.isSymbolicLink(p);
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
