package io.strata.fuse;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What the kernel asked of the mount: each operation's count and time, and how many failed (an
 * errno, ENOENT included: a look-up of a missing name is an answer, but a burst of them is worth
 * seeing). Meters are made at an operation's first call and looked up by name after that.
 */
final class FuseMetrics {
  static final String REQUESTS = "strata.fuse.requests";
  static final String ERRORS = "strata.fuse.request.errors";

  /** Requests as the kernel sent them, by opcode (Strata's own FUSE loop only). */
  static final String KERNEL_REQUESTS = "strata.fuse.kernel.requests";

  /** Opens answered FOPEN_PASSTHROUGH, and backing files registered now (Strata's own loop). */
  static final String PASSTHROUGH_OPENS = "strata.fuse.passthrough.opens";

  static final String BACKING_FILES = "strata.fuse.passthrough.backing.files";

  private record Meters(Timer time, Counter errors) {}

  private final MeterRegistry registry;
  private final Map<String, Meters> byOp = new ConcurrentHashMap<>();

  /** By opcode: counted once per request read, so looked up by index, made at first use. */
  private final AtomicReferenceArray<Counter> byOpcode = new AtomicReferenceArray<>(64);

  FuseMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * Records one call of {@code op} that began at {@code startNanos} and returned {@code result}.
   */
  void record(String op, long startNanos, int result) {
    Meters m = byOp.computeIfAbsent(op, this::meters);
    m.time().record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    if (result < 0) {
      m.errors().increment();
    }
  }

  /** One request of {@code opcode} read from the kernel. */
  void kernelRequest(int opcode) {
    int at = opcode >= 0 && opcode < byOpcode.length() ? opcode : 0;
    Counter c = byOpcode.get(at);
    if (c == null) {
      // Micrometer returns the one counter of a name and tags: a race registers it once.
      c =
          Counter.builder(KERNEL_REQUESTS)
              .tag("opcode", FuseAbi.name(opcode))
              .description("FUSE requests the kernel sent, by opcode (Strata's own loop)")
              .register(registry);
      byOpcode.set(at, c);
    }
    c.increment();
  }

  /** Counts what {@code passthrough} does, read when scraped. */
  void passthrough(Passthrough passthrough) {
    FunctionCounter.builder(PASSTHROUGH_OPENS, passthrough, Passthrough::passedThrough)
        .description("Opens answered FOPEN_PASSTHROUGH: the kernel reads the worker's file itself")
        .register(registry);
    Gauge.builder(BACKING_FILES, passthrough, Passthrough::backingFiles)
        .description("Whole files registered with the kernel as backing files now")
        .register(registry);
  }

  private Meters meters(String op) {
    return new Meters(
        Timer.builder(REQUESTS)
            .tag("op", op)
            .description("FUSE requests served, by operation")
            .register(registry),
        Counter.builder(ERRORS)
            .tag("op", op)
            .description("FUSE requests answered with an errno, by operation")
            .register(registry));
  }
}
