package io.strata.client.data;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.LeaseGrant;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short-circuit reads: bytes a worker on this host holds on SSD, read by the client from the
 * worker's segment files. The client leases a span of the file over the domain socket (the worker
 * pins the segments named and says where each page lies), then reads with positioned reads of its
 * own. Each page is checked against its crc32c once per lease before its bytes are used.
 *
 * <p>Anything short of a clean read — a page not on the worker's disk, an expired lease, a file
 * this process may not open (other user, other mount namespace), a bad checksum — answers
 * "cannot", and the caller reads over the socket instead; a worker whose files cannot be opened is
 * not asked again for a while. Thread-safe.
 */
public final class ShortCircuit implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShortCircuit.class);
  /** Pages of a lease not on disk yet may be there soon (the socket read caches them): ask again after this. */
  private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Duration DISABLED_FOR = Duration.ofMinutes(1);
  /** Before the first grant tells a worker's page size, lease spans as if pages were the smallest. */
  private static final long MIN_PAGE = 4096;
  private static final Duration FILE_IDLE = Duration.ofSeconds(30);

  /** One span of one file version on one worker. */
  private record LeaseKey(Endpoint worker, DataClient.Target file, long spanSize, long span) {}

  private final DataClient data;
  private final ByteBufAllocator allocator;
  private final LongSupplier nanoTime;
  private final Cache<LeaseKey, Lease> leases = Caffeine.newBuilder().maximumSize(4096)
      .expireAfterWrite(Duration.ofMinutes(1)).build();
  /**
   * Open segment files. An idle one is closed soon: a worker deletes a segment it has evicted, and
   * an open descriptor would keep its blocks allocated (or, after a worker restart, name an old inode).
   */
  private final Cache<String, FileChannel> files = Caffeine.newBuilder().maximumSize(256)
      .expireAfterAccess(FILE_IDLE).scheduler(Scheduler.systemScheduler())
      .removalListener((String path, FileChannel ch, com.github.benmanes.caffeine.cache.RemovalCause cause) -> close(ch))
      .build();
  private final Cache<Endpoint, Boolean> disabled = Caffeine.newBuilder().expireAfterWrite(DISABLED_FOR).build();
  private final Cache<Endpoint, Long> pageSizes = Caffeine.newBuilder().maximumSize(1024).build();

  public ShortCircuit(DataClient data, ByteBufAllocator allocator, LongSupplier nanoTime) {
    this.data = data;
    this.allocator = allocator;
    this.nanoTime = nanoTime;
  }

  /**
   * Reads {@code dst.remaining()} bytes at {@code offset} (fewer at end of file) into {@code dst};
   * returns the count, or -1 if this range cannot be read here (then {@code dst}'s content is undefined).
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

  /** Reads from the page holding {@code pos} up to that page's end or {@code end}; -1 if it cannot. */
  private long readFromPage(Endpoint worker, DataClient.Target file, long pos, long end, ByteBuffer dst) {
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
    int n = (int) (Math.min(end, pageStart + page.length()) - pos);
    if (n <= 0) {
      return -1;
    }
    String segment = lease.segmentOf(page);
    FileChannel ch = open(worker, segment);
    if (ch == null) {
      return -1;
    }
    try {
      ByteBuffer slice = dst.slice(dst.position(), n);
      boolean good;
      if (lease.verified(index)) {
        readFully(ch, slice, page.offset() + (pos - pageStart));
        good = true;
      } else if (n == page.length()) {
        // The whole page is wanted: check it where it lands instead of reading it twice.
        readFully(ch, slice, page.offset());
        good = checksumHolds(slice.flip(), page);
      } else {
        good = verify(ch, page);
        if (good) {
          readFully(ch, slice, page.offset() + (pos - pageStart));
        }
      }
      if (!good) {
        // Perhaps an old descriptor of a segment file the worker has replaced: open it afresh next time.
        files.invalidate(segment);
        return -1;
      }
      lease.markVerified(index);
      dst.position(dst.position() + n);
      return n;
    } catch (IOException e) {
      // Closed by the file cache meanwhile, or the file went away: the socket has the bytes.
      files.invalidate(segment);
      return -1;
    }
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

  private FileChannel open(Endpoint worker, String segment) {
    try {
      return files.get(segment, p -> {
        try {
          return FileChannel.open(Path.of(p), StandardOpenOption.READ);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      disable(worker, "cannot open " + segment + ": " + e.getCause());
      return null;
    }
  }

  /** Checks the whole page against its crc32c. */
  private boolean verify(FileChannel ch, LeaseGrant.Page page) throws IOException {
    ByteBuf buf = allocator.directBuffer(page.length(), page.length());
    try {
      ByteBuffer b = buf.nioBuffer(0, page.length());
      readFully(ch, b, page.offset());
      return checksumHolds(b.flip(), page);
    } finally {
      buf.release();
    }
  }

  private boolean checksumHolds(ByteBuffer bytes, LeaseGrant.Page page) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    if ((int) crc.getValue() == page.crc()) {
      return true;
    }
    LOG.warn("a page leased from a segment file failed its checksum; reading it over the socket");
    leases.invalidateAll();
    return false;
  }

  private static void readFully(FileChannel ch, ByteBuffer dst, long position) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = ch.read(dst, at);
      if (n < 0) {
        throw new IOException("segment file ends early");
      }
      at += n;
    }
  }

  private void disable(Endpoint worker, String why) {
    if (disabled.asMap().putIfAbsent(worker, Boolean.TRUE) == null) {
      LOG.info("short-circuit reads from worker {} are off for {} s: {}; reading over its socket", worker,
          DISABLED_FOR.toSeconds(), why);
    }
  }

  private static void close(FileChannel ch) {
    try {
      if (ch != null) {
        ch.close();
      }
    } catch (IOException ignored) {
      // Read-only: nothing to lose.
    }
  }

  @Override
  public void close() {
    files.invalidateAll();
    files.cleanUp();
    leases.invalidateAll();
  }
}
