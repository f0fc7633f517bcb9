package io.strata.it;

import io.strata.worker.WorkerMetrics;
import io.strata.worker.WorkerProcess;

/** A worker's own counters, read from its registry in this JVM (a MiniCluster's workers). */
final class WorkerCounters {
  private WorkerCounters() {}

  static double counter(WorkerProcess worker, String name, String... tags) {
    return worker.registry().get(name).tags(tags).counter().count();
  }

  /** Bytes the worker's data server sent, from every source. */
  static double socketBytes(WorkerProcess worker) {
    return worker.registry().get(WorkerMetrics.BYTES_READ).counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
