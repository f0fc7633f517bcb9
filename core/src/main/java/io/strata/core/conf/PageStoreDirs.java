package io.strata.core.conf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The text form of strata.worker.page.store.dirs: {@code folder:quota} entries. */
public final class PageStoreDirs {
  static final String MESSAGE = "expected folder:quota entries, e.g. /mnt/nvme0/strata:200GiB";

  /** One cache folder and how many bytes it may use. */
  public record Dir(Path path, long quota) {}

  private PageStoreDirs() {}

  static boolean valid(List<String> entries) {
    try {
      parse(entries);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  public static List<Dir> parse(List<String> entries) {
    List<Dir> dirs = new ArrayList<>();
    for (String e : entries) {
      int colon = e.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(e);
      }
      dirs.add(
          new Dir(Path.of(e.substring(0, colon)), ConfType.BYTES.parse(e.substring(colon + 1))));
    }
    return dirs;
  }
}
