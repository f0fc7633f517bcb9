package io.strata.worker.page;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Segments the index has forgotten while a reader outside the process held a pin on them: their
 * files stay until the pin expires. Looked at on every page written, so only once the first pin has
 * run out. Guarded by the tier's lock.
 */
final class RetiredSegments {
  private final List<Segment> retired = new ArrayList<>();
  private final Consumer<Segment> delete;

  /** When the first pin of a retired segment runs out (none is looked at before). */
  private long firstExpiryNanos;

  RetiredSegments(Consumer<Segment> delete) {
    this.delete = delete;
  }

  void add(Segment s) {
    long until = s.pinnedUntilNanos();
    if (retired.isEmpty() || until - firstExpiryNanos < 0) {
      firstExpiryNanos = until;
    }
    retired.add(s);
  }

  /** Deletes those whose pins have expired by {@code nowNanos}. */
  void deleteExpired(long nowNanos) {
    if (retired.isEmpty() || nowNanos - firstExpiryNanos < 0) {
      return;
    }
    List<Segment> kept = new ArrayList<>();
    for (Segment s : retired) {
      if (s.pinnedAt(nowNanos)) {
        if (kept.isEmpty() || s.pinnedUntilNanos() - firstExpiryNanos < 0) {
          firstExpiryNanos = s.pinnedUntilNanos();
        }
        kept.add(s);
      } else {
        delete.accept(s);
      }
    }
    retired.clear();
    retired.addAll(kept);
  }

  void deleteAll() {
    retired.forEach(delete);
    retired.clear();
  }
}
