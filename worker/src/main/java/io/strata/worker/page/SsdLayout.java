package io.strata.worker.page;

import io.strata.core.conf.WorkerKeys;
import io.strata.core.status.StrataException;
import java.nio.file.Path;

/**
 * An SSD cache folder and how it is laid out: its quota, the size of its segments, and how much of
 * an evicted segment (percent of its size) may be written again as hot pages.
 */
public record SsdLayout(Path dir, long quota, long segmentSize, int readmitPercent) {
  public SsdLayout {
    if (quota < 2 * segmentSize) {
      // A configuration mistake: one line, and the worker exits with code 2.
      throw StrataException.invalidArgument(
          "the quota of "
              + dir
              + " ("
              + (quota >> 20)
              + " MiB) must hold at least two segments of "
              + (segmentSize >> 20)
              + " MiB: raise it in "
              + WorkerKeys.PAGE_STORE_DIRS.name()
              + " or lower "
              + WorkerKeys.SEGMENT_SIZE.name());
    }
  }
}
