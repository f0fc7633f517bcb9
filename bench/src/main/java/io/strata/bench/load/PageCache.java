package io.strata.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Dropping the kernel's caches, for cold measurements (root only). */
public final class PageCache {
  private static final Path DROP = Path.of("/proc/sys/vm/drop_caches");

  /** What {@code drop_caches} frees: the page cache alone, or dentries and inodes too. */
  public enum Level {
    /**
     * {@code 1}: the page cache; names and inodes stay, as they do for a job whose data set
     * outgrows memory (the kernel reclaims pages long before the names it reads again).
     */
    PAGES("1"),
    /** {@code 3}: the page cache, dentries and inodes. */
    ALL("3");

    private final String value;

    Level(String value) {
      this.value = value;
    }
  }

  private PageCache() {}

  public static boolean canDrop() {
    return Files.isWritable(DROP);
  }

  /** Writes back dirty pages, then drops clean ones, dentries and inodes; nothing unless asked. */
  public static void drop(boolean really) throws IOException, InterruptedException {
    drop(really, Level.ALL);
  }

  /**
   * Writes back dirty pages, then frees what {@code level} names; nothing unless {@code really}.
   */
  public static void drop(boolean really, Level level) throws IOException, InterruptedException {
    if (!really) {
      return;
    }
    new ProcessBuilder("sync").inheritIO().start().waitFor();
    Files.writeString(DROP, level.value + "\n");
  }
}
