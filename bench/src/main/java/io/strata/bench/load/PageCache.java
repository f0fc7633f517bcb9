package io.strata.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Dropping the kernel's page cache, for cold measurements (root only). */
public final class PageCache {
  private static final Path DROP = Path.of("/proc/sys/vm/drop_caches");

  private PageCache() {}

  public static boolean canDrop() {
    return Files.isWritable(DROP);
  }

  /** Writes back dirty pages, then drops clean ones; does nothing unless {@code really}. */
  public static void drop(boolean really) throws IOException, InterruptedException {
    if (!really) {
      return;
    }
    new ProcessBuilder("sync").inheritIO().start().waitFor();
    Files.writeString(DROP, "3\n");
  }
}
