package io.strata.core.util;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What to do when a future ends, where nobody waits for the callback itself. */
public final class Futures {
  private static final Logger LOG = LoggerFactory.getLogger(Futures.class);

  private Futures() {}

  /**
   * Runs {@code callback} with the future's value or failure once it ends. The future {@code
   * whenComplete} returns would hold an exception the callback throws where no one looks; here it
   * is logged instead.
   */
  public static <T> void onDone(
      CompletableFuture<T> future, BiConsumer<? super T, ? super Throwable> callback) {
    var unused =
        future.whenComplete(
            (value, error) -> {
              try {
                callback.accept(value, error);
              } catch (RuntimeException e) {
                LOG.error("a completion callback failed", e);
              }
            });
  }
}
