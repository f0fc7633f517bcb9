package io.strata.worker.page;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How much an SSD folder may hold on its disk: its own bytes plus what the file system has free,
 * less a reserve, looked at once a second. Not raised by writes between looks, so a burst of writes
 * cannot overrun the disk meanwhile. Thread-safe.
 */
final class DiskRoom {
  private static final Logger LOG = LoggerFactory.getLogger(DiskRoom.class);
  private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final LongSupplier freeBytes;
  private final long reserve;
  private final LongSupplier nanoTime;
  private volatile long checkedAtNanos;
  private volatile long room = Long.MAX_VALUE;

  /**
   * @param freeBytes bytes the file system can still take; {@code Long.MAX_VALUE} when unknown
   */
  DiskRoom(LongSupplier freeBytes, long reserve, LongSupplier nanoTime) {
    this.freeBytes = freeBytes;
    this.reserve = reserve;
    this.nanoTime = nanoTime;
  }

  /** The bytes the folder may hold, given the bytes it holds now; unlimited when unknown. */
  long room(long used) {
    long now = nanoTime.getAsLong();
    if (now - checkedAtNanos > RECHECK_NANOS || room == Long.MAX_VALUE) {
      long free = freeBytes.getAsLong();
      room = free == Long.MAX_VALUE ? Long.MAX_VALUE : used + free - reserve;
      checkedAtNanos = now;
    }
    return room;
  }

  /** Usable bytes of the file system holding {@code dir}; unknown if it cannot be asked. */
  static LongSupplier usableSpace(Path dir) {
    return () -> {
      try {
        return Files.getFileStore(dir).getUsableSpace();
      } catch (IOException e) {
        LOG.warn("cannot ask how much room {} has: {}", dir, e.toString());
        return Long.MAX_VALUE;
      }
    };
  }
}
