package io.strata.testkit.integrity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** Counters of one run: reads checked, writes, allowed errors, violations (the first few kept). */
public final class Report {
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong violations = new AtomicLong();
  private final AtomicLong chaos = new AtomicLong();
  private final List<String> first = new ArrayList<>();

  void read() {
    reads.incrementAndGet();
  }

  void write() {
    writes.incrementAndGet();
  }

  void error() {
    errors.incrementAndGet();
  }

  void chaos() {
    chaos.incrementAndGet();
  }

  void violation(String what) {
    violations.incrementAndGet();
    synchronized (first) {
      if (first.size() < 20) {
        first.add(what);
      }
    }
  }

  public long readsChecked() {
    return reads.get();
  }

  public long writes() {
    return writes.get();
  }

  public long errors() {
    return errors.get();
  }

  public long violations() {
    return violations.get();
  }

  public long chaosSteps() {
    return chaos.get();
  }

  public List<String> firstViolations() {
    synchronized (first) {
      return List.copyOf(first);
    }
  }

  /** One JSON object, as {@code strata bench integrity} prints it last. */
  public String json() {
    return String.format(
        Locale.ROOT,
        "{\"reads_checked\":%d,\"writes\":%d,\"errors\":%d,\"chaos_steps\":%d,\"violations\":%d}",
        readsChecked(),
        writes(),
        errors(),
        chaosSteps(),
        violations());
  }
}
