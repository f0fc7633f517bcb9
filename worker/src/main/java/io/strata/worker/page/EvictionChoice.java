package io.strata.worker.page;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Which SSD segment eviction takes next, and which of its pages are written again rather than lost:
 * the policy, apart from the tier that carries it out.
 */
final class EvictionChoice {
  /**
   * A segment more pinned than this is passed over: evicting it would free little, rewrite much.
   */
  private static final double MOST_PINNED = 0.5;

  private EvictionChoice() {}

  /**
   * The least recently read sealed segment that no writer, lease or running load holds (segments
   * from {@code keepFrom} on are a load's own); null if there is none.
   */
  static Segment victim(Collection<Segment> segments, long nowNanos, long keepFrom, PagePins pins) {
    return segments.stream()
        .filter(s -> s.sealed() && !s.writing() && !s.pinnedAt(nowNanos) && s.id < keepFrom)
        .sorted(Comparator.comparingLong(s -> s.lastAccessNanos))
        .filter(s -> pins == PagePins.NONE || pinnedShare(s, pins) <= MOST_PINNED)
        .findFirst()
        .orElse(null);
  }

  /** The pages of {@code victim} to write again: its hot ones, then its pinned ones. */
  static List<PageId> survivors(
      Segment victim, Map<PageId, PageLocation> locations, int readmitPercent, PagePins pins) {
    List<PageId> keep = new ArrayList<>(victim.hotPages(locations, readmitPercent));
    if (pins != PagePins.NONE) {
      victim.pages.stream()
          .filter(pins::pinned)
          .filter(id -> !keep.contains(id))
          .forEach(keep::add);
    }
    return keep;
  }

  private static double pinnedShare(Segment s, PagePins pins) {
    int all = s.pages.size();
    return all == 0 ? 0 : (double) s.pages.stream().filter(pins::pinned).count() / all;
  }
}
