package io.strata.worker.data;

import io.strata.core.status.StatusCode;
import io.strata.core.transport.WholeRequest;
import io.strata.core.util.Futures;
import io.strata.worker.read.PageFetcher;
import java.util.concurrent.CompletableFuture;

/**
 * Answers a WHOLE on domain-socket connections only (a client across the network cannot open this
 * host's files): the version kept whole by the {@link WholeKeeper}, then END OK, or END with why
 * not. The caller was checked as for a READ of the file, which would cache the same bytes.
 */
final class WholeResponder {
  private final WholeKeeper keeper;
  private final ReadResponder reads;
  private final DataServerMetrics metrics;

  WholeResponder(WholeKeeper keeper, ReadResponder reads, DataServerMetrics metrics) {
    this.keeper = keeper;
    this.reads = reads;
    this.metrics = metrics;
  }

  void whole(Exchange x, WholeRequest req) {
    metrics.requests("whole").increment();
    if (!x.overDomainSocket(
        "whole files are kept for clients on the worker's host, over its domain socket")) {
      return;
    }
    PageFetcher.Target target = reads.target(x, req.path(), req.fingerprint(), req.fileLength());
    if (target == null) {
      return;
    }
    CompletableFuture<Boolean> kept;
    try {
      kept = keeper.keepWhole(target.file(), target.key(), req.fingerprint(), req.fileLength());
    } catch (RuntimeException e) {
      x.fail(Exchange.unwrap(e));
      return;
    }
    Futures.onDone(
        kept,
        (whole, error) ->
            x.onEventLoop(
                () -> {
                  if (error != null) {
                    x.fail(Exchange.unwrap(error));
                  } else if (whole) {
                    x.ok();
                  } else {
                    x.end(
                        StatusCode.RESOURCE_EXHAUSTED,
                        req.path() + " is not kept whole here (its size, or no room)");
                  }
                }));
  }
}
