package io.strata.worker.page;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.PageStoreDirs;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.TierUsage;
import io.strata.core.util.OwnerOnly;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.page.whole.WholeFileArea;
import io.strata.worker.page.whole.WholeFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's cache: a memory tier (optional) above SSD tiers (optional; at least one of the two).
 * A page admitted from the UFS enters memory and is written at once to one SSD folder (chosen by
 * hashing the page), so the memory tier holds the hot subset of what SSD holds: evicting a page
 * from memory demotes it to SSD-only without a write, a worker killed at any moment keeps its
 * cache, and every page is written to SSD exactly once. A page read from SSD is promoted back to
 * memory. With no SSD folder, memory is the whole cache. Thread-safe.
 */
public final class PageStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PageStore.class);

  private static final long INDEX_CACHE_BYTES = 32 << 20;

  private final MemTier mem;
  private final ShmArena arena;

  /** Pages in memory read from there once since they came, not yet moved into the arena. */
  private final Set<PageId> readOnce = ConcurrentHashMap.newKeySet();

  private final List<SsdTier> ssds;
  private final Admission admission = new Admission();
  private final Supplier<WorkerKeys.AdmissionPolicy> policy;
  private final TierMetrics memMetrics;
  private final CachedVersions versions;
  private final WholeFiles wholes;

  PageStore(
      MemTier mem,
      ShmArena arena,
      List<SsdTier> ssds,
      WholeFiles wholes,
      Supplier<WorkerKeys.AdmissionPolicy> policy,
      java.util.function.Function<MemTier, TierMetrics> memMetrics) {
    this.mem = mem;
    this.wholes = wholes;
    this.arena = arena;
    this.ssds = List.copyOf(ssds);
    this.policy = policy;
    this.memMetrics = mem == null ? null : memMetrics.apply(mem);
    this.versions =
        new CachedVersions(
            ssds.isEmpty() ? new io.strata.worker.kv.MemoryKvStore() : ssds.get(0).index(),
            System::currentTimeMillis);
  }

  /** The fully cached versions kept as one file each, on the SSD folders. */
  public WholeFiles wholeFiles() {
    return wholes;
  }

  /** The file versions this store holds pages of. */
  public CachedVersions versions() {
    return versions;
  }

  /**
   * Segments are every user's cached bytes: closed to other local users (the folder given may be
   * shared, so its own mode is left as it is). A folder that cannot be made is the tier's to report
   * when it writes; the worker serves from the UFS meanwhile.
   */
  private static void closeToOthers(Path segments) {
    try {
      OwnerOnly.folder(segments);
    } catch (IOException e) {
      LOG.warn("cannot make {} owner-only: {}", segments, e.toString());
    }
  }

  /** The store a worker's configuration describes; SSD folders are recovered before it returns. */
  public static PageStore create(
      Configuration conf, ByteBufAllocator allocator, MeterRegistry registry, LongSupplier nanoTime)
      throws IOException {
    List<SsdTier> ssds = new ArrayList<>();
    List<WholeFileArea> areas = new ArrayList<>();
    List<LongSupplier> wholeLimits = new ArrayList<>();
    int wholeShare = conf.get(WorkerKeys.WHOLE_FILE_SHARE);
    for (PageStoreDirs.Dir d : PageStoreDirs.parse(conf.get(WorkerKeys.PAGE_STORE_DIRS))) {
      closeToOthers(d.path().resolve("segments"));
      RocksKvStore index = RocksKvStore.open(d.path().resolve("index"), INDEX_CACHE_BYTES);
      SsdTier tier =
          SsdTier.open(
              new SsdLayout(
                  d.path(),
                  d.quota(),
                  conf.get(WorkerKeys.SEGMENT_SIZE),
                  conf.get(WorkerKeys.READMIT_PERCENT)),
              index,
              allocator,
              nanoTime,
              registry);
      ssds.add(tier);
      if (wholeShare > 0) {
        WholeFileArea area = WholeFileArea.open(d.path(), index, nanoTime);
        areas.add(area);
        // A share of what the folder may hold now: its quota, or less when its disk has less room.
        wholeLimits.add(() -> (tier.capacity() + tier.besidesBytes()) / 100 * wholeShare);
        // Whole files (and the parts being sealed) take their bytes from the folder's quota:
        // segments get what they leave.
        tier.besides(() -> area.used() + area.partBytes());
      } else {
        WholeFileArea.removeLeftBehind(d.path(), index, nanoTime);
      }
    }
    WholeFiles wholes =
        areas.isEmpty()
            ? WholeFiles.none()
            : new WholeFiles(
                areas,
                new WholeFiles.Rules(conf.get(WorkerKeys.WHOLE_FILE_MIN_SIZE), wholeLimits),
                allocator);
    long memSize = conf.get(WorkerKeys.MEM_SIZE);
    PageStore[] store = new PageStore[1];
    MemTier mem = null;
    ShmArena arena = null;
    if (memSize > 0) {
      String memDir = conf.get(WorkerKeys.MEM_DIR);
      if (!memDir.isEmpty()) {
        arena =
            ShmArena.open(
                Path.of(memDir),
                Math.toIntExact(conf.get(WorkerKeys.PAGE_SIZE)),
                conf.get(WorkerKeys.MEM_HUGE_PAGES));
      }
      if (arena != null) {
        Gauge.builder(WorkerMetrics.MEM_SHARED_BYTES, arena, ShmArena::fileBytes)
            .description(
                "Length of the memory tier's shared-memory file: the most of its memory it holds")
            .register(registry);
        Gauge.builder(WorkerMetrics.MEM_HUGE_BYTES, arena, ShmArena::hugeBytes)
            .description("Bytes of the memory tier's shared-memory file in 2 MiB huge pages")
            .register(registry);
      }
      java.util.function.Consumer<PageId> onEvict = id -> store[0].evictedFromMemory(id);
      mem =
          conf.get(WorkerKeys.MEM_POLICY) == WorkerKeys.MemPolicy.TINYLFU
              ? new TinyLfuMemTier(memSize, onEvict)
              : new ClockMemTier(memSize, onEvict);
    }
    if (mem == null && ssds.isEmpty()) {
      throw io.strata.core.status.StrataException.invalidArgument(
          WorkerKeys.MEM_SIZE.name()
              + " is 0 and "
              + WorkerKeys.PAGE_STORE_DIRS.name()
              + " is empty: the worker would have no cache");
    }
    store[0] =
        new PageStore(
            mem,
            arena,
            ssds,
            wholes,
            () -> conf.get(WorkerKeys.ADMISSION),
            m -> new TierMetrics(registry, "MEM", null, m::used, m::capacity, m::pages));
    return store[0];
  }

  private void evictedFromMemory(PageId id) {
    readOnce.remove(id);
    (onDisk(id) ? memMetrics.demotions : memMetrics.evictions).increment();
  }

  /**
   * The page from memory, with a reference for the caller; null if memory does not hold it. Never
   * blocks.
   */
  public ByteBuf getFromMemory(PageId id) {
    ByteBuf page = mem == null ? null : mem.get(id);
    if (page != null) {
      memMetrics.hits.increment();
    }
    return page;
  }

  public boolean onDisk(PageId id) {
    return !ssds.isEmpty() && (ssdOf(id).contains(id) || wholes.holds(id));
  }

  public boolean contains(PageId id) {
    return (mem != null && mem.contains(id)) || onDisk(id);
  }

  /**
   * Where the page lies on SSD, pinned there until {@code untilNanos}; empty if no SSD tier holds
   * it.
   */
  public java.util.Optional<SsdTier.Pinned> pinOnDisk(
      PageId id, long untilNanos, java.util.function.Predicate<java.nio.file.Path> allowed) {
    if (ssds.isEmpty()) {
      return java.util.Optional.empty();
    }
    java.util.Optional<SsdTier.Pinned> inSegment = ssdOf(id).pin(id, untilNanos, allowed);
    return inSegment.isPresent() ? inSegment : pinWhole(id, untilNanos, allowed);
  }

  /**
   * The page in its whole file, the file leased until {@code untilNanos}: a segment to a reader.
   */
  private java.util.Optional<SsdTier.Pinned> pinWhole(
      PageId id, long untilNanos, java.util.function.Predicate<java.nio.file.Path> allowed) {
    PageId.FileKey key = new PageId.FileKey(id.keyHigh(), id.keyLow());
    return wholes
        .find(key)
        .filter(f -> id.index() < f.pages() && allowed.test(f.path()))
        .filter(f -> wholes.lease(key, untilNanos))
        .map(
            f -> {
              int i = (int) id.index();
              return new SsdTier.Pinned(
                  f.path(), new PageLocation(-1, f.offset(i), f.pageLength(i), f.crc(i)));
            });
  }

  /**
   * The page as it lies on SSD, to be sent without a copy, if its checksum already held in this
   * process; null otherwise (then {@link #readFromDisk} verifies it). Never blocks.
   */
  public DiskPage diskPage(PageId id) {
    return ssds.isEmpty() ? null : ssdOf(id).diskPage(id);
  }

  /**
   * Reads a page from SSD (blocking), checksum verified, and promotes it to memory; null if SSD
   * does not hold it or the copy was corrupt (dropped and counted).
   */
  public ByteBuf readFromDisk(PageId id) {
    if (ssds.isEmpty()) {
      return null;
    }
    ByteBuf page = ssdOf(id).read(id);
    if (page == null) {
      page = wholes.readPage(id);
    }
    if (page != null && mem != null) {
      mem.put(id, page);
      memMetrics.promotions.increment();
    }
    return page;
  }

  /**
   * Admits a page read from the UFS (blocking: it is written to SSD), if the admission policy
   * agrees or {@code force} (a client asked to cache what it writes). The caller keeps its
   * reference.
   */
  public boolean admit(PageId id, ByteBuf page, boolean force) {
    if (!force && !admission.admit(id, Admission.Policy.valueOf(policy.get().name()))) {
      return false;
    }
    if (mem != null) {
      mem.put(id, page);
    }
    return ssds.isEmpty() || ssdOf(id).write(id, page) || mem != null;
  }

  /**
   * Where each SSD folder writes now, and last where the whole files' seals are: what a load caches
   * past this mark stays while it runs.
   */
  public long[] mark() {
    long[] mark = new long[ssds.size() + 1];
    for (int i = 0; i < ssds.size(); i++) {
      mark[i] = ssds.get(i).mark();
    }
    mark[ssds.size()] = wholes.mark();
    return mark;
  }

  /** The whole files' part of a {@link #mark}. */
  public static long wholeMark(long[] mark) {
    return mark[mark.length - 1];
  }

  /**
   * Admits a page a load read, keeping the pages admitted since {@code mark} (the same load's):
   * false when there is no room for it without evicting them. With SSD folders the page must reach
   * its folder (memory alone would drop it again unseen), and goes there only.
   */
  public boolean admitLoaded(PageId id, ByteBuf page, long[] mark) {
    if (ssds.isEmpty()) {
      if (mem != null) {
        mem.put(id, page);
      }
      return mem != null;
    }
    // Loaded pages go to disk only: copying them into memory too would cost a copy per page and
    // push out the pages readers are using; a read promotes them when it comes.
    int i = ssdIndex(id);
    return ssds.get(i).write(id, page, mark[i]);
  }

  /**
   * Whether a page just read from memory should move into the shared-memory arena now: a whole page
   * not there yet, read from memory before ({@link #settle} it, off the network threads). Not on
   * its first read: a cold sequential reader's pages are all read from memory once, after the
   * read-ahead put them there, and moving each would cost that read a copy per page.
   */
  public boolean settleDue(PageId id, ByteBuf page) {
    if (!movable(page)) {
      return false;
    }
    if (readOnce.add(id)) {
      if (readOnce.size() > Math.max(1024, 2 * mem.pages())) {
        // Pages read once and then evicted in a race with this mark: forget them all now and then.
        readOnce.clear();
      }
      return false;
    }
    readOnce.remove(id);
    return true;
  }

  /**
   * Moves a page memory holds into the shared-memory arena (blocking: one copy), from where it is
   * sent by sendfile. Done when a page is read from memory again, not when it is admitted: a cold
   * read then costs no more than before, and only pages read again pay the copy.
   */
  public void settle(PageId id) {
    ByteBuf page = mem == null ? null : mem.get(id);
    if (page == null) {
      return;
    }
    try {
      ByteBuf moved = movable(page) ? arena.copyOf(page) : null;
      if (moved != null) {
        mem.replace(id, moved);
        moved.release();
      }
    } finally {
      page.release();
    }
  }

  /** A whole page that is not yet in the arena (and there is one). */
  private boolean movable(ByteBuf page) {
    return arena != null && arena.fits(page) && !ShmArena.holds(page);
  }

  public void remove(PageId id) {
    readOnce.remove(id);
    if (mem != null) {
      mem.remove(id);
    }
    if (!ssds.isEmpty()) {
      ssdOf(id).remove(id);
      // A version missing a page is not whole any more.
      wholes.remove(new PageId.FileKey(id.keyHigh(), id.keyLow()));
    }
  }

  /**
   * Drops the SSD segments' copies of the first {@code pages} pages of version {@code key}, now
   * that its whole file holds them (memory keeps its copies: they are as good).
   */
  public void dropSegmentCopies(PageId.FileKey key, long pages) {
    for (long i = 0; i < pages && !ssds.isEmpty(); i++) {
      ssdOf(key.page(i)).remove(key.page(i));
    }
  }

  /**
   * Which pages eviction keeps: in the SSD folders, which hold every page (memory holds a copy of
   * the hot ones); in memory where it is the whole cache.
   */
  public void pins(PagePins pins) {
    if (ssds.isEmpty()) {
      mem.pins(pins);
    } else {
      ssds.forEach(t -> t.pins(pins));
    }
  }

  /** Bytes the memory tier could still take before it evicts (0 without one). */
  public long memoryRoom() {
    return mem == null ? 0 : Math.max(0, mem.capacity() - mem.used());
  }

  public void setMemoryCapacity(long bytes) {
    if (mem != null) {
      mem.setCapacity(bytes);
    }
  }

  /** Every tier: name, capacity, used bytes, pages. */
  public List<TierUsage> tiers() {
    List<TierUsage> out = new ArrayList<>();
    if (mem != null) {
      out.add(
          TierUsage.newBuilder()
              .setTier("MEM")
              .setCapacityBytes(mem.capacity())
              .setUsedBytes(mem.used())
              .setPages(mem.pages())
              .build());
    }
    for (int i = 0; i < ssds.size(); i++) {
      out.add(
          TierUsage.newBuilder()
              .setTier("SSD")
              .setDir(ssds.get(i).dir().toString())
              .setCapacityBytes(folderCapacity(i))
              .setUsedBytes(folderUsed(i))
              .setPages(ssds.get(i).pages())
              .build());
    }
    return out;
  }

  /** The cache's size: SSD when there is SSD (memory holds a subset of it), else memory. */
  public long capacityBytes() {
    if (ssds.isEmpty()) {
      return mem.capacity();
    }
    return IntStream.range(0, ssds.size()).mapToLong(this::folderCapacity).sum();
  }

  /** What SSD folder {@code i} may hold: its segments' room and its whole files. */
  private long folderCapacity(int i) {
    return ssds.get(i).capacity() + ssds.get(i).besidesBytes();
  }

  /** What SSD folder {@code i} holds: its segments and its whole files. */
  private long folderUsed(int i) {
    return ssds.get(i).used() + ssds.get(i).besidesBytes();
  }

  public long usedBytes() {
    if (ssds.isEmpty()) {
      return mem.used();
    }
    return IntStream.range(0, ssds.size()).mapToLong(this::folderUsed).sum();
  }

  /**
   * The indexes of the pages of version {@code key} that some tier holds, each once, in no order: a
   * walk of every page the store holds, for versions too long to look up page by page.
   */
  public LongStream heldIndexes(PageId.FileKey key) {
    Stream<PageId> ids = ssds.stream().flatMap(SsdTier::ids);
    if (mem != null) {
      ids = Stream.concat(mem.ids(), ids);
    }
    return LongStream.concat(
            ids.filter(id -> id.keyHigh() == key.high() && id.keyLow() == key.low())
                .mapToLong(PageId::index),
            wholes.heldIndexes(key))
        .distinct();
  }

  public long pageCount() {
    return ssds.isEmpty() ? mem.pages() : ssds.stream().mapToLong(SsdTier::pages).sum();
  }

  private SsdTier ssdOf(PageId id) {
    return ssds.get(ssdIndex(id));
  }

  private int ssdIndex(PageId id) {
    long h = id.keyLow() * 31 + id.index();
    return (int) Math.floorMod(h, (long) ssds.size());
  }

  @Override
  public void close() {
    if (mem != null) {
      mem.close();
    }
    if (arena != null) {
      arena.close();
    }
    wholes.close();
    ssds.forEach(SsdTier::close);
  }
}
