package io.strata.core.process;

import java.util.Optional;

/** A long-running Strata process (master, worker, FUSE) as {@link ProcessMain} runs it. */
public interface Service extends AutoCloseable {
  /** Starts every server; returns once they listen. */
  void start() throws Exception;

  /** Empty when the process serves requests, else why not yet (shown by /health). */
  Optional<String> notReadyReason();

  /** One line saying where the process listens, for logs and the start script. */
  String describe();

  /** Stops every server and releases what it holds. Idempotent. */
  @Override
  void close();
}
