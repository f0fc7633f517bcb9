package io.strata.worker.data;

import io.strata.core.status.StatusCode;
import io.strata.core.transport.LeaseRequest;
import io.strata.core.util.Futures;
import io.strata.worker.read.PageFetcher;

/**
 * Answers a LEASE from the {@link LeaseDesk}, on domain-socket connections only: a client across
 * the network cannot open this host's files.
 */
final class LeaseResponder {
  private final LeaseDesk desk;
  private final ReadResponder reads;
  private final DataServerMetrics metrics;

  LeaseResponder(LeaseDesk desk, ReadResponder reads, DataServerMetrics metrics) {
    this.desk = desk;
    this.reads = reads;
    this.metrics = metrics;
  }

  void lease(Exchange x, LeaseRequest req) {
    metrics.requests("lease").increment();
    if (!x.overDomainSocket("short-circuit leases are granted over the domain socket only")) {
      return;
    }
    PageFetcher.Target target = reads.target(x, req.path(), req.fingerprint(), req.fileLength());
    if (target == null) {
      return;
    }
    // Once the server stops, a grant that cannot be sent is dropped: its pins simply expire.
    Futures.onDone(
        desk.grantAsync(LeaseHolders.holderOf(x.ctx.channel()), target, req),
        (grant, error) ->
            x.onEventLoop(
                () -> {
                  if (error != null) {
                    x.end(StatusCode.INTERNAL, "cannot grant a lease: " + error.getMessage());
                    return;
                  }
                  x.write(grant.encode(x.ctx.alloc(), x.requestId));
                  metrics.leases().increment();
                  x.ok();
                }));
  }
}
