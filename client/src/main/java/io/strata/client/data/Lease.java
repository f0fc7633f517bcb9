package io.strata.client.data;

import io.strata.core.transport.LeaseGrant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A lease as the client holds it: where pages of one file version lie in a local worker's segment
 * files, until {@link #usableUntilNanos} (half the worker's pin, so a slow read still finishes
 * inside the pin), and which of those pages this client has checked against their crc32c, in which
 * mapping: a segment file mapped afresh may be another file under the same name (a worker that
 * restarted and wrote new pages there), and its bytes are checked again.
 */
final class Lease {
  final long pageSize;
  final long grantedAtNanos;
  final long usableUntilNanos;
  private final Map<Long, LeaseGrant.Page> pages;
  private final java.util.List<String> segments;
  private final Map<Long, MappedSegment> verified = new ConcurrentHashMap<>();

  Lease(LeaseGrant grant, long nowNanos) {
    this.pageSize = grant.pageSize();
    this.grantedAtNanos = nowNanos;
    this.usableUntilNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(grant.validMillis() / 2);
    this.segments = grant.segments();
    this.pages = new HashMap<>();
    grant.pages().forEach(p -> pages.put(p.index(), p));
  }

  boolean usable(long nowNanos) {
    return usableUntilNanos - nowNanos > 0;
  }

  /** The page, or null if the worker did not have it on disk when it granted the lease. */
  LeaseGrant.Page page(long index) {
    return pages.get(index);
  }

  String segmentOf(LeaseGrant.Page page) {
    return segments.get(page.segment());
  }

  boolean verified(long index, MappedSegment in) {
    return verified.get(index) == in;
  }

  void markVerified(long index, MappedSegment in) {
    verified.put(index, in);
  }
}
