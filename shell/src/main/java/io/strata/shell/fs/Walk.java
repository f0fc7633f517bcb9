package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import java.util.function.Consumer;

/** Depth-first walks of a Strata tree, one listing at a time. */
final class Walk {
  private Walk() {}

  /**
   * Visits {@code root} and, if it is a directory, everything below it (parents before children).
   */
  static void all(FileSystem fs, FileInfo root, Consumer<FileInfo> visitor) {
    visitor.accept(root);
    if (root.directory()) {
      for (FileInfo child : fs.listStatus(root.path())) {
        all(fs, child, visitor);
      }
    }
  }
}
