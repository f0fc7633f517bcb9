package io.strata.worker.page;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Segments the index has forgotten while a reader outside the process held a pin on them: their
 * files stay until the pin expires. Guarded by the tier's lock.
 */
final class RetiredSegments {
  private final List<Segment> retired = new ArrayList<>();
  private final Consumer<Segment> delete;

  RetiredSegments(Consumer<Segment> delete) {
    this.delete = delete;
  }

  void add(Segment s) {
    retired.add(s);
  }

  /** Deletes those whose pins have expired by {@code nowNanos}. */
  void deleteExpired(long nowNanos) {
    retired.removeIf(
        s -> {
          if (s.pinnedAt(nowNanos)) {
            return false;
          }
          delete.accept(s);
          return true;
        });
  }

  void deleteAll() {
    retired.forEach(delete);
    retired.clear();
  }
}
