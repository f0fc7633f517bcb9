package io.strata.worker.page;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The segments of one cache folder being appended to, one per lane; each writing thread keeps to
 * its lane. The file system serialises buffered writes to one file (ext4 holds the inode's lock
 * through the copy into the page cache), so writers sharing a single active segment copied one at a
 * time: a load's four loader threads wrote about 15 % slower into one shared file than into a file
 * each. Segments stay large, sequential and written once.
 *
 * <p>Not thread-safe: the tier's lock guards it.
 */
final class ActiveSegments {
  /** Lanes of a folder: as many as a worker's loader threads by default. */
  static final int LANES = 4;

  private static final AtomicInteger NEXT_LANE = new AtomicInteger();
  private static final ThreadLocal<Integer> LANE =
      ThreadLocal.withInitial(() -> NEXT_LANE.getAndIncrement() & Integer.MAX_VALUE);

  private final Segment[] lanes = new Segment[LANES];

  /** The calling thread's lane: threads take lanes in turn as they first write. */
  static int laneOfThisThread() {
    return LANE.get() % LANES;
  }

  /** The segment being appended to in {@code lane}, or null. */
  Segment get(int lane) {
    return lanes[lane];
  }

  void set(int lane, Segment s) {
    lanes[lane] = s;
  }

  boolean contains(Segment s) {
    for (Segment a : lanes) {
      if (a == s) {
        return true;
      }
    }
    return false;
  }

  /** Takes {@code s} out of its lane (it was sealed). */
  void remove(Segment s) {
    for (int i = 0; i < lanes.length; i++) {
      if (lanes[i] == s) {
        lanes[i] = null;
      }
    }
  }

  /** The lowest id among the active segments, or {@code otherwise} if none is active. */
  long lowestId(long otherwise) {
    return Arrays.stream(lanes)
        .filter(Objects::nonNull)
        .mapToLong(s -> s.id)
        .min()
        .orElse(otherwise);
  }

  /** Takes every segment out of its lane; returns them. */
  Segment[] removeAll() {
    Segment[] all = Arrays.stream(lanes).filter(Objects::nonNull).toArray(Segment[]::new);
    Arrays.fill(lanes, null);
    return all;
  }
}
