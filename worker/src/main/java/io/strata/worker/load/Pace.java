package io.strata.worker.load;

import java.util.function.LongSupplier;

/**
 * A bandwidth limit that tells a caller how long to wait instead of making it wait: a load with a
 * limit of its own (any user may ask for 1 KiB/s) then leaves its thread while it waits, and slow
 * loads hold up no one else's, limited or not. Bytes are taken as they are asked for; the wait is
 * until the bytes taken before them have had their time.
 */
final class Pace {
  private final LongSupplier nanoTime;
  private volatile long bytesPerSecond;
  private long nextFreeNanos;

  Pace(long bytesPerSecond, LongSupplier nanoTime) {
    this.bytesPerSecond = Math.max(1, bytesPerSecond);
    this.nanoTime = nanoTime;
    this.nextFreeNanos = nanoTime.getAsLong();
  }

  long bytesPerSecond() {
    return bytesPerSecond;
  }

  /** A new limit, for the bytes asked for from now on. */
  void setBytesPerSecond(long rate) {
    bytesPerSecond = Math.max(1, rate);
  }

  /** Takes {@code bytes}; returns the nanoseconds to wait before using them (0: at once). */
  synchronized long take(long bytes) {
    long now = nanoTime.getAsLong();
    long start = Math.max(now, nextFreeNanos);
    nextFreeNanos = start + (long) (bytes * 1e9 / bytesPerSecond);
    return start - now;
  }
}
