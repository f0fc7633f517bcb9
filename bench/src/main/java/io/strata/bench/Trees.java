package io.strata.bench;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Folder trees a benchmark made and removes. */
public final class Trees {
  private Trees() {}

  /**
   * A new temporary folder, removed when the benchmark ends, also when it is stopped (Ctrl-C,
   * SIGTERM) before its own clean-up runs: a stopped run used to leave gigabytes of datasets in
   * /tmp.
   */
  public static Path temporary(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // Other hooks (a MiniDFSCluster's, a forked cluster's) still write into the
                  // folder as they stop: a few passes, a moment apart.
                  try {
                    for (int pass = 0; pass < 5 && Files.exists(dir); pass++) {
                      delete(dir);
                      Thread.sleep(300);
                    }
                  } catch (IOException e) {
                    System.err.println("could not remove " + dir + ": " + e.getMessage());
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "remove-" + prefix));
    return dir;
  }

  /**
   * Removes {@code root} and everything under it, without entering another file system mounted
   * inside it (a FUSE mount still up would have its under-storage emptied through it). Gone
   * already: nothing to do.
   */
  public static void delete(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Object device = device(root);
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            return device.equals(device(dir))
                ? FileVisitResult.CONTINUE
                : FileVisitResult.SKIP_SUBTREE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            file.toFile().delete();
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) {
            dir.toFile().delete();
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private static Object device(Path p) throws IOException {
    return Files.getAttribute(p, "unix:dev", LinkOption.NOFOLLOW_LINKS);
  }
}
