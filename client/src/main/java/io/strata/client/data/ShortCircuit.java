package io.strata.client.data;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.LeaseGrant;
import io.strata.core.util.Caches;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short-circuit reads: bytes a worker on this host holds on SSD, read by the client from the
 * worker's segment files. The client leases a span of the file over the domain socket (the worker
 * pins the segments named and says where each page lies), then copies from its own read-only
 * mappings of those files ({@link MappedSegment}). Each page is checked against its crc32c once per
 * lease and mapping before its bytes are used.
 *
 * <p>Anything short of a clean read — a page not on the worker's disk, an expired lease, a file
 * this process may not open (other user, other mount namespace), a bad checksum — answers "cannot",
 * and the caller reads over the socket instead; a worker whose files cannot be opened is not asked
 * again for a while. Thread-safe.
 */
public final class ShortCircuit implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShortCircuit.class);

  /**
   * Pages of a lease not on disk yet may be there soon (the socket read caches them): ask again
   * after this.
   */
  private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final Duration DISABLED_FOR = Duration.ofMinutes(1);

  /**
   * Before the first grant tells a worker's page size, lease spans as if pages were the smallest.
   */
  private static final long MIN_PAGE = 4096;

  private static final Duration FILE_IDLE = Duration.ofSeconds(30);

  /** One span of one file version on one worker. */
  private record LeaseKey(Endpoint worker, DataClient.Target file, long spanSize, long span) {}

  private final DataClient data;
  private final LongSupplier nanoTime;
  private final Cache<LeaseKey, Lease> leases =
      Caches.builder().maximumSize(4096).expireAfterWrite(Duration.ofMinutes(1)).build();

  /**
   * Mapped segment files. An idle one is unmapped soon: a worker deletes a segment it has evicted,
   * and a mapping would keep its blocks allocated (or, after a worker restart, show an old inode).
   */
  private final Cache<String, MappedSegment> files =
      Caches.builder()
          .maximumSize(256)
          .expireAfterAccess(FILE_IDLE)
          .scheduler(Scheduler.systemScheduler())
          .removalListener(
              (String path,
                  MappedSegment seg,
                  com.github.benmanes.caffeine.cache.RemovalCause cause) -> {
                if (seg != null) {
                  seg.retire();
                }
              })
          .build();

  private final Cache<Endpoint, Boolean> disabled =
      Caches.builder().expireAfterWrite(DISABLED_FOR).build();
  private final Cache<Endpoint, Long> pageSizes = Caches.builder().maximumSize(1024).build();

  public ShortCircuit(DataClient data, LongSupplier nanoTime) {
    this.data = data;
    this.nanoTime = nanoTime;
  }

  /**
   * Reads {@code dst.remaining()} bytes at {@code offset} (fewer at end of file) into {@code dst};
   * returns the count, or -1 if this range cannot be read here (then {@code dst}'s content is
   * undefined).
   */
  public int read(Endpoint worker, DataClient.Target file, long offset, ByteBuffer dst) {
    if (!worker.isDomainSocket() || disabled.getIfPresent(worker) != null) {
      return -1;
    }
    long end = Math.min(file.fileLength(), offset + dst.remaining());
    int start = dst.position();
    long pos = offset;
    while (pos < end) {
      long n = readFromPage(worker, file, pos, end, dst);
      if (n < 0) {
        return -1;
      }
      pos += n;
    }
    return dst.position() - start;
  }

  /**
   * Reads from the page holding {@code pos} up to that page's end or {@code end}; -1 if it cannot.
   */
  private long readFromPage(
      Endpoint worker, DataClient.Target file, long pos, long end, ByteBuffer dst) {
    Lease lease = lease(worker, file, pos, false);
    if (lease == null) {
      return -1;
    }
    long index = pos / lease.pageSize;
    LeaseGrant.Page page = lease.page(index);
    if (page == null && nanoTime.getAsLong() - lease.grantedAtNanos > REFRESH_NANOS) {
      lease = lease(worker, file, pos, true);
      page = lease == null ? null : lease.page(index);
    }
    if (page == null) {
      return -1;
    }
    long pageStart = index * lease.pageSize;
    if (page.length() != Math.min(lease.pageSize, file.fileLength() - pageStart)) {
      // Not this version's page as the file's length cuts it: read it over the socket instead.
      return -1;
    }
    int n = (int) (Math.min(end, pageStart + page.length()) - pos);
    if (n <= 0) {
      return -1;
    }
    String segment = lease.segmentOf(page);
    MappedSegment seg = open(worker, segment, page);
    if (seg == null) {
      return -1;
    }
    boolean good =
        (lease.verified(index, seg)
                || checksumHolds(seg.crc32c(page.offset(), page.length()), page))
            && seg.copy(page.offset() + (pos - pageStart), dst.slice(dst.position(), n));
    if (!good) {
      // Perhaps an old mapping of a segment file the worker has replaced: map it afresh next time.
      files.invalidate(segment);
      return -1;
    }
    lease.markVerified(index, seg);
    dst.position(dst.position() + n);
    return n;
  }

  private Lease lease(Endpoint worker, DataClient.Target file, long pos, boolean refresh) {
    long spanSize = pageSizes.asMap().getOrDefault(worker, MIN_PAGE) * LeaseGrant.MAX_PAGES;
    LeaseKey key = new LeaseKey(worker, file, spanSize, pos / spanSize);
    Lease held = leases.getIfPresent(key);
    long now = nanoTime.getAsLong();
    if (held != null && held.usable(now) && !refresh) {
      return held;
    }
    leases.invalidate(key);
    return leases.get(key, k -> grant(k));
  }

  private Lease grant(LeaseKey key) {
    try {
      LeaseGrant g = data.lease(key.worker, key.file, key.span * key.spanSize, key.spanSize);
      pageSizes.put(key.worker, g.pageSize());
      return new Lease(g, nanoTime.getAsLong());
    } catch (StrataException e) {
      if (e.code() == StatusCode.FAILED_PRECONDITION) {
        disable(key.worker, e.getMessage());
      }
      return null;
    }
  }

  /**
   * The segment's mapping, mapped afresh when the page lies past it (the worker appended since).
   */
  private MappedSegment open(Endpoint worker, String segment, LeaseGrant.Page page) {
    try {
      MappedSegment seg = files.get(segment, ShortCircuit::map);
      if (!seg.covers(page.offset(), page.length())) {
        files.invalidate(segment);
        seg = files.get(segment, ShortCircuit::map);
      }
      return seg.covers(page.offset(), page.length()) ? seg : null;
    } catch (UncheckedIOException e) {
      disable(worker, "cannot open " + segment + ": " + e.getCause());
      return null;
    }
  }

  private static MappedSegment map(String path) {
    try {
      return MappedSegment.open(Path.of(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** False also when the page could not be read ({@code crc} null): the socket has it. */
  private boolean checksumHolds(Integer crc, LeaseGrant.Page page) {
    if (crc == null) {
      return false;
    }
    if (crc == page.crc()) {
      return true;
    }
    LOG.warn("a page leased from a segment file failed its checksum; reading it over the socket");
    leases.invalidateAll();
    return false;
  }

  private void disable(Endpoint worker, String why) {
    if (disabled.asMap().putIfAbsent(worker, Boolean.TRUE) == null) {
      LOG.info(
          "short-circuit reads from worker {} are off for {} s: {}; reading over its socket",
          worker,
          DISABLED_FOR.toSeconds(),
          why);
    }
  }

  @Override
  public void close() {
    files.invalidateAll();
    files.cleanUp();
    leases.invalidateAll();
  }
}
