package io.strata.core.util;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Periodic duties that survive their own failures. A task given straight to {@link
 * ScheduledExecutorService#scheduleWithFixedDelay} stops for good, silently, the first time it
 * throws; a heartbeat or a leader's duty must not. Each run's unexpected exception is logged and
 * the next run happens as planned.
 */
public final class Periodic {
  private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);

  private Periodic() {}

  /**
   * Runs {@code task} every {@code delay} after the end of the previous run, until the executor
   * shuts down; {@code what} names it in logs.
   */
  public static void every(
      ScheduledExecutorService executor,
      String what,
      long initialDelay,
      long delay,
      TimeUnit unit,
      Runnable task) {
    var unused =
        executor.scheduleWithFixedDelay(
            () -> {
              try {
                task.run();
              } catch (RuntimeException e) {
                LOG.warn(
                    "{} failed; it runs again in {} {}",
                    what,
                    delay,
                    unit.toString().toLowerCase(java.util.Locale.ROOT),
                    e);
              }
            },
            initialDelay,
            delay,
            unit);
  }
}
