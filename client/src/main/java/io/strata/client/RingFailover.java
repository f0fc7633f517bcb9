package io.strata.client;

import io.strata.client.cluster.ClusterViewCache;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

/**
 * The one rule by which every request of this client finds a worker and survives its failure.
 *
 * <ul>
 *   <li><b>Candidates</b>: the path's owner on the ring of LIVE workers, then the next workers on
 *       the ring; at most {@value #ATTEMPTS} workers in all, each asked once. Each attempt takes
 *       the first worker not yet asked from the ring as it is then, so a worker the refreshed view
 *       has dropped costs no attempt.
 *   <li><b>Moving on</b>: only a failure of the worker ({@link #workerFailed}: unreachable, silent
 *       past its timeout, or answering nonsense) moves on; an answer about the request (not found,
 *       changed, refused, cancelled) is the answer.
 *   <li><b>The view</b>: a worker failure marks the cluster view suspect, and a fresh one (which
 *       soon leaves a dead worker out) is fetched in the background; the next candidate comes from
 *       the view there is, so a master that is down holds no request. A view that cannot be had (no
 *       view yet and no master answers, or no live worker) counts as no candidates left.
 *   <li><b>Fallback</b>: when the candidates are spent, the caller's fallback (reading the
 *       under-storage itself) if it has one and {@code strata.user.ufs.fallback.enabled} is on;
 *       else UNAVAILABLE naming the workers asked, with the last failure as its cause (or the
 *       view's own error when no worker could be asked).
 * </ul>
 *
 * The async entry point never runs an attempt after the first on the thread that reported the
 * failure (a Netty event loop, which must not block on a connect, a view or a UFS read): it
 * continues on the failover executor. Thread-safe.
 */
final class RingFailover {
  static final int ATTEMPTS = 3;

  /** Where the candidates come from: the client's cluster view and its ring. */
  interface Ring {
    /**
     * Up to {@code count} workers for {@code key}, owner first; throws when no view can be had or
     * no worker is live.
     */
    List<WorkerInfo> owners(String key, int count);

    /** A worker of the view failed: a fresh view is asked for. */
    void invalidate();
  }

  /**
   * One try on one worker; {@code n} is 0 for the first worker asked. Must leave no partial effect
   * when it fails.
   */
  interface Attempt<T> {
    T run(WorkerInfo worker, int n);
  }

  /** One asynchronous try on one worker, under the same contract as {@link Attempt}. */
  interface AsyncAttempt<T> {
    CompletableFuture<T> run(WorkerInfo worker, int n);
  }

  /** What to do when no worker could serve: given the last failure (null if none was asked). */
  interface Fallback<T> {
    T run(StrataException last);
  }

  /** The client's cluster view as a ring of candidates. */
  static Ring ring(ClusterViewCache view) {
    return new Ring() {
      @Override
      public List<WorkerInfo> owners(String key, int count) {
        return view.owners(key, count);
      }

      @Override
      public void invalidate() {
        view.invalidate();
      }
    };
  }

  private final Ring ring;
  private final BooleanSupplier fallbackEnabled;
  private final Executor executor;

  /**
   * @param fallbackEnabled read at each use: the key may change while running
   * @param executor where async attempts after a failure run; may block
   */
  RingFailover(Ring ring, BooleanSupplier fallbackEnabled, Executor executor) {
    this.ring = ring;
    this.fallbackEnabled = fallbackEnabled;
    this.executor = executor;
  }

  /** The worker failed (not the request): another worker may serve it. */
  static boolean workerFailed(StrataException e) {
    return e.code() == StatusCode.UNAVAILABLE
        || e.code() == StatusCode.DEADLINE_EXCEEDED
        || e.code() == StatusCode.INTERNAL;
  }

  /**
   * The path's owner, if a view can be had; for what has no failover of its own (a stream, a
   * lease).
   */
  Optional<WorkerInfo> owner(String path) {
    try {
      List<WorkerInfo> owners = ring.owners(path, 1);
      return owners.isEmpty() ? Optional.empty() : Optional.of(owners.get(0));
    } catch (StrataException e) {
      return Optional.empty();
    }
  }

  /** Runs {@code attempt} on the path's candidates in turn; {@code fallback} may be null. */
  <T> T call(String path, Attempt<T> attempt, Fallback<T> fallback) {
    Tries tries = new Tries(path);
    for (WorkerInfo w = tries.next(); w != null; w = tries.next()) {
      try {
        return attempt.run(w, tries.count() - 1);
      } catch (StrataException e) {
        tries.failed(e);
      }
    }
    return tries.spent(fallback);
  }

  /** Like {@link #call}, for attempts that answer later (on a Netty event loop, say). */
  <T> CompletableFuture<T> callAsync(String path, AsyncAttempt<T> attempt, Fallback<T> fallback) {
    CompletableFuture<T> result = new CompletableFuture<>();
    tryNext(new Tries(path), attempt, fallback, result);
    return result;
  }

  private <T> void tryNext(
      Tries tries, AsyncAttempt<T> attempt, Fallback<T> fallback, CompletableFuture<T> result) {
    WorkerInfo w;
    try {
      w = tries.next();
      if (w == null) {
        result.complete(tries.spent(fallback));
        return;
      }
    } catch (StrataException e) {
      result.completeExceptionally(e);
      return;
    }
    CompletableFuture<T> answer;
    try {
      answer = attempt.run(w, tries.count() - 1);
    } catch (StrataException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    var unused =
        answer.whenComplete(
            (value, error) -> {
              if (error == null) {
                result.complete(value);
                return;
              }
              StrataException e = unwrap(error);
              try {
                tries.failed(e);
              } catch (StrataException refused) {
                result.completeExceptionally(refused);
                return;
              }
              try {
                executor.execute(() -> tryNext(tries, attempt, fallback, result));
              } catch (RejectedExecutionException closed) {
                result.completeExceptionally(e);
              }
            });
  }

  private static StrataException unwrap(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    return c instanceof StrataException s ? s : StrataException.internal(String.valueOf(c), c);
  }

  /** The workers one request has asked, and its last failure. Touched by one thread at a time. */
  private final class Tries {
    private final String path;
    private final List<String> asked = new ArrayList<>(ATTEMPTS);
    private StrataException last;

    Tries(String path) {
      this.path = path;
    }

    int count() {
      return asked.size();
    }

    /** The next worker to ask, or null when none is left. */
    WorkerInfo next() {
      if (asked.size() >= ATTEMPTS) {
        return null;
      }
      List<WorkerInfo> candidates;
      try {
        candidates = ring.owners(path, ATTEMPTS);
      } catch (StrataException e) {
        if (last == null) {
          last = e;
        }
        return null;
      }
      for (WorkerInfo w : candidates) {
        if (!asked.contains(w.getId())) {
          asked.add(w.getId());
          return w;
        }
      }
      return null;
    }

    /** Records a failure of the worker last asked; rethrows it when it is the request's answer. */
    void failed(StrataException e) {
      if (!workerFailed(e)) {
        throw e;
      }
      last = e;
      ring.invalidate();
    }

    <T> T spent(Fallback<T> fallback) {
      if (fallback != null && fallbackEnabled.getAsBoolean()) {
        return fallback.run(last);
      }
      if (asked.isEmpty()) {
        throw last != null
            ? last
            : StrataException.unavailable("no worker can serve " + path, null);
      }
      // One code for "every candidate failed", however the last one failed (refused at once or
      // silent past its timeout): a script must not branch on how slowly a worker died.
      throw StrataException.unavailable(
          "no worker could serve "
              + path
              + " (asked "
              + String.join(", ", asked)
              + "): "
              + last.getMessage(),
          last);
    }
  }
}
