package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import java.util.List;
import java.util.function.Consumer;

/** Depth-first walks of a Strata tree, one listing at a time. */
final class Walk {
  private Walk() {}

  /**
   * Visits {@code root} and, if it is a directory, everything below it (parents before children),
   * each with its {@link #whole} status.
   */
  static void all(FileSystem fs, FileInfo root, Consumer<FileInfo> visitor) {
    visitor.accept(root);
    if (root.directory()) {
      for (FileInfo child : fs.listStatus(root.path())) {
        all(fs, whole(fs, child), visitor);
      }
    }
  }

  /**
   * A listed entry's whole status: looked up when its store listed it without its attributes (S3),
   * so that a command acts on the mode, owner and type it has, not the listing's defaults.
   */
  static FileInfo whole(FileSystem fs, FileInfo listed) {
    return listed.listedOnly() ? fs.getStatus(listed.path()) : listed;
  }

  /**
   * Visits each path (with {@code recursive}, everything under each folder too); returns how many
   * were visited.
   */
  static int each(
      FileSystem fs, List<String> paths, boolean recursive, Consumer<FileInfo> visitor) {
    int[] visited = {0};
    Consumer<FileInfo> counting =
        f -> {
          visitor.accept(f);
          visited[0]++;
        };
    for (String path : paths) {
      FileInfo root = fs.getStatus(path);
      if (recursive) {
        all(fs, root, counting);
      } else {
        counting.accept(root);
      }
    }
    return visited[0];
  }

  /** "1 path", "3 paths". */
  static String count(int paths) {
    return paths + (paths == 1 ? " path" : " paths");
  }
}
