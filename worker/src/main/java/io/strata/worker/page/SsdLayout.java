package io.strata.worker.page;

import java.nio.file.Path;

/**
 * An SSD cache folder and how it is laid out: its quota, the size of its segments, and how much of
 * an evicted segment (percent of its size) may be written again as hot pages.
 */
public record SsdLayout(Path dir, long quota, long segmentSize, int readmitPercent) {
  public SsdLayout {
    if (quota < 2 * segmentSize) {
      throw new IllegalArgumentException(
          "the quota of " + dir + " must hold at least two segments");
    }
  }
}
