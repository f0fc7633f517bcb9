package io.strata.worker.page;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.worker.kv.KvStore;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cache folder on SSD, laid out for write amplification 1. Pages are appended as records to an
 * active segment file (one per writing lane, {@link ActiveSegments}); a full segment is sealed and
 * never written again. When the folder's quota would be exceeded, the coldest sealed segment (least
 * recently read) is evicted whole: its pages leave the index and the file is unlinked. The SSD thus
 * sees large sequential writes and whole-file deletes only. Optionally a few hot pages of an
 * evicted segment are written again.
 *
 * <p>The index ({@code page → segment, offset, length, crc32c}) lives in memory and in a {@link
 * KvStore}, kept by the {@link SegmentCatalog}; {@link SegmentRecovery} rebuilds and checks it at
 * start. Every read into memory verifies the page's crc32c; a page that fails is dropped (and
 * counted) so the caller reads the UFS instead. A page verified once may then be sent straight from
 * its file ({@link #diskPage}).
 *
 * <p>Short-circuit readers in other processes read segment files themselves under a lease ({@link
 * #pin}): a pinned segment is not chosen for eviction, and a pinned segment that loses its last
 * page keeps its file (and its share of the quota) until the pin expires.
 *
 * <p>Thread-safe: reads run concurrently; so do the writes of page bytes (see {@link #write(PageId,
 * ByteBuf, long)}); reservations, publications, removals, pins and evictions hold the tier's lock.
 */
public final class SsdTier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SsdTier.class);
  private static final long RETRY_AFTER_FAILURE_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final Path dir;
  private final long quota;
  private final DiskRoom disk;
  private final long segmentSize;
  private final int readmitPercent;
  private final KvStore index;
  private final ByteBufAllocator allocator;
  private final LongSupplier nanoTime;
  private final TierMetrics metrics;
  private final SegmentCatalog catalog;
  private final ActiveSegments active = new ActiveSegments();

  /** Segments from this id on are kept during the current write (see {@link #mark}). */
  private long evictableBelow = Long.MAX_VALUE;

  private volatile long failedAtNanos = -1;
  private volatile PagePins pins = PagePins.NONE;

  /** Bytes of the folder's quota something beside the segments holds (its whole files). */
  private volatile LongSupplier besides = () -> 0;

  private SsdTier(
      SsdLayout layout,
      KvStore index,
      ByteBufAllocator allocator,
      LongSupplier nanoTime,
      MeterRegistry registry,
      LongSupplier freeBytes) {
    this.dir = layout.dir();
    this.quota = layout.quota();
    this.disk = new DiskRoom(freeBytes, layout.segmentSize(), nanoTime);
    this.segmentSize = layout.segmentSize();
    this.readmitPercent = layout.readmitPercent();
    this.index = index;
    this.allocator = allocator;
    this.nanoTime = nanoTime;
    this.catalog = new SegmentCatalog(dir, index, nanoTime);
    this.metrics =
        new TierMetrics(
            registry, "SSD", dir.toString(), catalog::used, this::capacity, catalog::pages);
  }

  /** Opens the folder, recovering its index and segments (see {@link SegmentRecovery}). */
  public static SsdTier open(
      SsdLayout layout,
      KvStore index,
      ByteBufAllocator allocator,
      LongSupplier nanoTime,
      MeterRegistry registry)
      throws IOException {
    return open(layout, index, allocator, nanoTime, registry, DiskRoom.usableSpace(layout.dir()));
  }

  /**
   * As {@link #open(SsdLayout, KvStore, ByteBufAllocator, LongSupplier, MeterRegistry)}, with the
   * bytes its file system can still take given by {@code freeBytes}.
   */
  public static SsdTier open(
      SsdLayout layout,
      KvStore index,
      ByteBufAllocator allocator,
      LongSupplier nanoTime,
      MeterRegistry registry,
      LongSupplier freeBytes)
      throws IOException {
    SsdTier tier = new SsdTier(layout, index, allocator, nanoTime, registry, freeBytes);
    SegmentRecovery.Result r = new SegmentRecovery(layout.dir(), index, nanoTime).run();
    tier.catalog.recovered(r);
    LOG.info(
        "cache folder {}: {} pages in {} segments, {} bytes, recovered in {} ms",
        layout.dir(),
        tier.catalog.pages(),
        tier.catalog.segmentCount(),
        tier.catalog.used(),
        r.millis());
    return tier;
  }

  public Path dir() {
    return dir;
  }

  public boolean contains(PageId id) {
    return catalog.location(id) != null;
  }

  public Optional<PageLocation> locate(PageId id) {
    return Optional.ofNullable(catalog.location(id));
  }

  /**
   * Where a page lies, for a reader in another process; its segment file stays until the pin
   * expires.
   */
  public record Pinned(Path segment, PageLocation location) {}

  /**
   * Pins the page's segment until {@code untilNanos} (never shortening a pin); empty if the page is
   * not here.
   */
  public Optional<Pinned> pin(PageId id, long untilNanos) {
    return pin(id, untilNanos, segment -> true);
  }

  /**
   * Pins the page's segment until {@code untilNanos} if {@code allowed} says so (asked before the
   * pin, under this tier's lock); empty if the page is not here or the pin is not allowed.
   */
  public synchronized Optional<Pinned> pin(PageId id, long untilNanos, Predicate<Path> allowed) {
    catalog.deleteExpired();
    PageLocation loc = catalog.location(id);
    Segment seg = catalog.segmentOf(loc);
    if (seg == null || !allowed.test(seg.path)) {
      return Optional.empty();
    }
    seg.pinUntil(untilNanos);
    return Optional.of(new Pinned(seg.path, loc));
  }

  /**
   * The page's bytes, checksum verified; null if absent, evicted meanwhile, unreadable or corrupt.
   */
  public ByteBuf read(PageId id) {
    PageLocation loc = catalog.location(id);
    Segment seg = catalog.segmentOf(loc);
    if (seg == null) {
      return null;
    }
    ByteBuf buf = allocator.directBuffer(loc.length(), loc.length());
    try {
      int n = seg.read(loc.offset(), buf.nioBuffer(0, loc.length()));
      buf.writerIndex(n);
      if (n != loc.length() || SegmentFormat.crc(buf.nioBuffer()) != loc.crc()) {
        buf.release();
        metrics.checksumFailures.increment();
        LOG.warn(
            "cached page {} in {} failed its checksum; dropped, it will be read from the UFS",
            id,
            seg.path);
        remove(id);
        return null;
      }
    } catch (ClosedChannelException e) {
      buf.release();
      return null;
    } catch (IOException e) {
      buf.release();
      LOG.warn("cannot read cached page from {}: {}", seg.path, e.toString());
      return null;
    }
    catalog.verified(id, loc);
    touched(seg, id);
    return buf;
  }

  /**
   * The page as it lies in its segment file, for sending without a copy; null unless it is here and
   * its checksum held when this process last read it (then the page cache or the device serves the
   * bytes the checksum covered: a segment is never rewritten in place).
   */
  public DiskPage diskPage(PageId id) {
    PageLocation loc = catalog.location(id);
    Segment seg = catalog.segmentOf(loc);
    if (seg == null || !loc.verified() || !seg.retain()) {
      return null;
    }
    touched(seg, id);
    return new DiskPage(seg, loc);
  }

  private void touched(Segment seg, PageId id) {
    seg.lastAccessNanos = nanoTime.getAsLong();
    if (readmitPercent > 0) {
      seg.hot.add(id);
    }
    metrics.hits.increment();
  }

  /**
   * Stores a page; returns false when it could not (the folder is full of pages that cannot be
   * evicted, or unwritable: then the tier stops writing for a while and says so once).
   */
  public boolean write(PageId id, ByteBuf page) {
    return write(id, page, Long.MAX_VALUE);
  }

  /**
   * The lowest segment pages written from now on go to (an active one, or the next): with it, a
   * load keeps its own pages ({@link #write(PageId, ByteBuf, long)}).
   */
  public synchronized long mark() {
    return active.lowestId(catalog.nextSegmentId());
  }

  /**
   * Stores a page, evicting only segments older than {@code keepFrom} (a {@link #mark}): a load
   * that outgrows the tier must not evict what it loaded itself, and is told "no room" instead.
   *
   * <p>The tier's lock is held to reserve the record's place in an active segment and to publish it
   * in the index, not while the bytes are written: writers fill their places side by side, so that
   * a write the kernel holds back (dirty-page throttling) does not stop the others. A page is found
   * only once its bytes are written; recovery cuts an unsealed segment at its first record that
   * does not check, so a place a killed writer left unfilled loses the records after it, never
   * serves wrong bytes.
   */
  public boolean write(PageId id, ByteBuf page, long keepFrom) {
    int length = page.readableBytes();
    int crc = SegmentFormat.crc(page.nioBuffer(page.readerIndex(), length));
    Reservation r;
    synchronized (this) {
      if (contains(id) || !writable()) {
        return contains(id);
      }
      try {
        evictableBelow = keepFrom;
        r = reserve(id, length, crc);
      } catch (IOException e) {
        failed(e);
        return false;
      } finally {
        evictableBelow = Long.MAX_VALUE;
      }
    }
    if (r == null) {
      return false;
    }
    try {
      fill(r, page);
    } catch (IOException e) {
      synchronized (this) {
        abandon(r);
        if (!(e instanceof ClosedChannelException) && catalog.holds(r.segment())) {
          failed(e);
        }
      }
      return false;
    }
    synchronized (this) {
      return publish(r);
    }
  }

  /** A record's place in a segment, taken but not yet written. */
  private record Reservation(Segment segment, long offset, PageId id, int length, int crc) {}

  private boolean writable() {
    if (failedAtNanos >= 0) {
      if (nanoTime.getAsLong() - failedAtNanos < RETRY_AFTER_FAILURE_NANOS) {
        return false;
      }
      failedAtNanos = -1;
    }
    return true;
  }

  private void failed(IOException e) {
    failedAtNanos = nanoTime.getAsLong();
    LOG.error(
        "cache folder {} cannot be written ({}); pages are served from memory and the UFS, "
            + "retrying in {} s",
        dir,
        e.getMessage(),
        TimeUnit.NANOSECONDS.toSeconds(RETRY_AFTER_FAILURE_NANOS));
  }

  /** Writes a page with the lock held throughout (pages evicted and written again). */
  private boolean append(PageId id, ByteBuf page) throws IOException {
    int length = page.readableBytes();
    int crc = SegmentFormat.crc(page.nioBuffer(page.readerIndex(), length));
    Reservation r = reserve(id, length, crc);
    if (r == null) {
      return false;
    }
    try {
      fill(r, page);
    } catch (IOException e) {
      abandon(r);
      throw e;
    }
    return publish(r);
  }

  /**
   * Takes the next place in the calling thread's active segment, evicting for room; null if there
   * is none.
   */
  private Reservation reserve(PageId id, int length, int crc) throws IOException {
    long need = SegmentFormat.HEADER + (long) length;
    if (need > segmentSize) {
      return null;
    }
    int lane = ActiveSegments.laneOfThisThread();
    Segment current = active.get(lane);
    if (current == null || current.size() + need > segmentSize) {
      roll(lane);
    }
    catalog.deleteExpired();
    while (catalog.used() + need > capacity()) {
      if (!evictColdest()) {
        return null;
      }
    }
    // Pages an eviction wrote again went to this lane too, and may have rolled it.
    Segment into = active.get(lane);
    catalog.charge(need);
    return new Reservation(into, into.reserve(need), id, length, crc);
  }

  /** Writes a reserved record's header and bytes into its place. */
  private static void fill(Reservation r, ByteBuf page) throws IOException {
    r.segment().writeAt(r.offset(), SegmentFormat.header(r.id(), r.length(), r.crc()), page);
  }

  /** Makes a written record findable; false if its segment went meanwhile (evicted, closed). */
  private boolean publish(Reservation r) {
    Segment seg = r.segment();
    seg.written();
    if (!catalog.holds(seg)) {
      return false;
    }
    catalog.publish(
        seg,
        r.id(),
        new PageLocation(seg.id, r.offset() + SegmentFormat.HEADER, r.length(), r.crc()));
    metrics.bytesWritten.increment((double) SegmentFormat.HEADER + r.length());
    return true;
  }

  /** A reserved record that will not be written: a sealed segment left empty goes. */
  private void abandon(Reservation r) {
    r.segment().written();
    catalog.dropIfDeserted(r.segment());
  }

  /** Seals the active segment of {@code lane} and starts a new one there. */
  private void roll(int lane) throws IOException {
    Segment old = active.get(lane);
    if (old != null) {
      seal(old);
    }
    active.set(lane, catalog.create());
  }

  private void seal(Segment s) {
    catalog.seal(s);
    if (s.pages.isEmpty() && !active.contains(s) && !s.writing()) {
      catalog.drop(s);
    }
  }

  /**
   * Evicts the segment {@link EvictionChoice} picks, writing again the pages it keeps; false if
   * there is none.
   */
  private boolean evictColdest() throws IOException {
    PagePins pinned = pins;
    Segment victim =
        EvictionChoice.victim(catalog.segments(), nanoTime.getAsLong(), evictableBelow, pinned);
    if (victim == null) {
      return false;
    }
    List<PageId> kept = new ArrayList<>();
    List<ByteBuf> copies = new ArrayList<>();
    for (PageId id :
        EvictionChoice.survivors(victim, catalog.locations(), readmitPercent, pinned)) {
      ByteBuf b = read(id);
      if (b != null) {
        kept.add(id);
        copies.add(b);
      }
    }
    int pages = victim.pages.size();
    catalog.drop(victim);
    int written = 0;
    for (int i = 0; i < copies.size(); i++) {
      ByteBuf b = copies.get(i);
      try {
        if (catalog.used() + SegmentFormat.HEADER + b.readableBytes() <= capacity()
            && append(kept.get(i), b)) {
          written++;
        }
      } finally {
        b.release();
      }
    }
    metrics.evictions.increment(pages - written);
    return true;
  }

  /** Which pages eviction keeps, from now on. */
  public void pins(PagePins pins) {
    this.pins = pins;
  }

  /**
   * Forgets a page; a sealed segment left with no page is deleted at once. A page of an active
   * segment seals it first: recovery re-reads only unsealed segments, and must not bring back a
   * page that was removed.
   */
  public synchronized void remove(PageId id) {
    Segment s = catalog.segmentOf(catalog.location(id));
    if (s != null && active.contains(s)) {
      seal(s);
      active.remove(s);
    }
    catalog.forget(id);
  }

  public long used() {
    return catalog.used();
  }

  /**
   * What the segments may hold: the folder's quota, or less when its file system has less room (a
   * quota set larger than the disk, or other files filling it), less what else the folder holds
   * ({@link #besides}). The disk's room counts all the folder holds as its own, so that what it
   * holds besides segments (whole files, their parts being written) neither hides room nor counts
   * twice, however it changed since the disk was last asked. One segment's worth of the disk stays
   * free. Past it the tier evicts, rather than write into a full disk.
   */
  public long capacity() {
    long others = besides.getAsLong();
    return Math.max(0, Math.min(quota, disk.room(catalog.used() + others)) - others);
  }

  /** What the folder holds besides segments now ({@link #besides}). */
  public long besidesBytes() {
    return besides.getAsLong();
  }

  /** What else takes from the folder's quota: the segments get the rest. */
  public void besides(LongSupplier bytes) {
    this.besides = bytes;
  }

  public long pages() {
    return catalog.pages();
  }

  /** The ids of the pages it holds, as they are while the stream is read. */
  Stream<PageId> ids() {
    return catalog.locations().keySet().stream();
  }

  TierMetrics metrics() {
    return metrics;
  }

  /** The index's store, where {@link CachedVersions} keeps its rows beside the pages. */
  KvStore index() {
    return index;
  }

  /** Seals the active segments, so that a restart trusts them without a scan. */
  @Override
  public synchronized void close() {
    for (Segment s : active.removeAll()) {
      seal(s);
    }
    catalog.close();
  }
}
