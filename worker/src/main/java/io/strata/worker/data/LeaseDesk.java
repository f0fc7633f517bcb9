package io.strata.worker.data;

import io.strata.core.transport.LeaseGrant;
import io.strata.core.transport.LeaseRequest;
import io.strata.core.util.DaemonThreads;
import io.strata.worker.page.SsdTier;
import io.strata.worker.read.PageFetcher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Grants short-circuit leases: for each page of the asked range that lies on SSD, where it lies,
 * with its segment pinned for {@link #VALID_MILLIS}. Pages held only in memory or not cached are
 * left out (the client reads them over the socket), and so are pages in segments beyond the share
 * of the tier its user may hold pinned ({@link LeaseHolders}). Pinning takes the SSD tier's lock,
 * which a write may hold through an eviction's file I/O: grants are made on threads of their own,
 * never on an event loop.
 */
final class LeaseDesk implements AutoCloseable {
  static final long VALID_MILLIS = 30_000;

  private final PageFetcher fetcher;
  private final LongSupplier nanoTime;
  private final LeaseHolders holders;
  private final ExecutorService threads =
      Executors.newFixedThreadPool(2, DaemonThreads.factory("lease"));

  /**
   * @param maxSegmentsPerUser the most segments one local user may hold pinned through leases
   */
  LeaseDesk(PageFetcher fetcher, LongSupplier nanoTime, LongSupplier maxSegmentsPerUser) {
    this.fetcher = fetcher;
    this.nanoTime = nanoTime;
    this.holders = new LeaseHolders(maxSegmentsPerUser);
  }

  CompletableFuture<LeaseGrant> grantAsync(
      String holder, PageFetcher.Target target, LeaseRequest req) {
    return CompletableFuture.supplyAsync(() -> grant(holder, target, req), threads);
  }

  @Override
  public void close() {
    threads.shutdown();
  }

  LeaseGrant grant(String holder, PageFetcher.Target target, LeaseRequest req) {
    long pageSize = fetcher.pageSize();
    long end = Math.min(target.fileLength(), req.offset() + req.length());
    long now = nanoTime.getAsLong();
    long until = now + TimeUnit.MILLISECONDS.toNanos(VALID_MILLIS);
    Map<String, Integer> segmentIds = new HashMap<>();
    List<String> segments = new ArrayList<>();
    List<LeaseGrant.Page> pages = new ArrayList<>();
    int pathBytes = 0;
    if (req.offset() < end) {
      long first = req.offset() / pageSize;
      long last = Math.min((end - 1) / pageSize, first + LeaseGrant.MAX_PAGES - 1);
      for (long i = first; i <= last; i++) {
        Optional<SsdTier.Pinned> pinned =
            fetcher.pinOnDisk(
                target, i, until, segment -> holders.take(holder, segment.toString(), now, until));
        if (pinned.isEmpty()) {
          continue;
        }
        String path = pinned.get().segment().toAbsolutePath().toString();
        Integer seg = segmentIds.get(path);
        if (seg == null) {
          pathBytes += path.getBytes(StandardCharsets.UTF_8).length;
          if (pathBytes > LeaseGrant.MAX_PATH_BYTES) {
            break;
          }
          seg = segments.size();
          segmentIds.put(path, seg);
          segments.add(path);
        }
        var loc = pinned.get().location();
        pages.add(new LeaseGrant.Page(i, seg, loc.offset(), loc.length(), loc.crc()));
      }
    }
    return new LeaseGrant(VALID_MILLIS, pageSize, segments, pages);
  }
}
