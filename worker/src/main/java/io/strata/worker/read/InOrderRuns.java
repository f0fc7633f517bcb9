package io.strata.worker.read;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Runs that continue one another read one after another, for an under-storage whose next run goes
 * on with the stream of the one before ({@link io.strata.core.ufs.UnderFileSystem#continuesRuns}):
 * a run that starts where an earlier one ends waits for it, so that a sequential reader's runs form
 * one chain, read in order; runs elsewhere (another reader of the same file, another file) start
 * chains of their own, read at once. Each run is a task of its own on the executor, handed on when
 * the one before ends: a long chain holds no thread between runs and does not starve other reads.
 * Thread-safe.
 *
 * @param <P> a place in a file (a version and a position) where a run starts or ends
 * @param <R> a run
 */
final class InOrderRuns<P, R> {
  private final Executor executor;
  private final Consumer<R> read;
  private final BiConsumer<R, RejectedExecutionException> rejected;

  /** Chains being read, by where their last run ends. Guarded by this. */
  private final Map<P, Chain<P, R>> byEnd = new HashMap<>();

  /** Runs waiting behind the one being read, and where the last of them ends. */
  private static final class Chain<P, R> {
    final ArrayDeque<R> waiting = new ArrayDeque<>();
    P end;

    Chain(P end) {
      this.end = end;
    }
  }

  /**
   * @param read reads a run (and never throws)
   * @param rejected ends a run the executor would not take (it is stopping)
   */
  InOrderRuns(
      Executor executor, Consumer<R> read, BiConsumer<R, RejectedExecutionException> rejected) {
    this.executor = executor;
    this.read = read;
    this.rejected = rejected;
  }

  /**
   * Reads {@code run}, which spans {@code [start, end)}, after a run being read that ends at start.
   */
  void submit(P start, P end, R run) {
    Chain<P, R> chain;
    synchronized (this) {
      Chain<P, R> before = byEnd.remove(start);
      if (before != null) {
        before.waiting.add(run);
        before.end = end;
        byEnd.put(end, before);
        return;
      }
      chain = new Chain<>(end);
      byEnd.put(end, chain);
    }
    start(chain, run);
  }

  private void start(Chain<P, R> chain, R run) {
    try {
      executor.execute(
          () -> {
            read.accept(run);
            R next = next(chain);
            if (next != null) {
              start(chain, next);
            }
          });
    } catch (RejectedExecutionException e) {
      rejected.accept(run, e);
      for (R r = next(chain); r != null; r = next(chain)) {
        rejected.accept(r, e);
      }
    }
  }

  /** The chain's run to read next, or null (the chain ends). */
  private synchronized R next(Chain<P, R> chain) {
    R next = chain.waiting.poll();
    if (next == null) {
      byEnd.remove(chain.end, chain);
    }
    return next;
  }
}
