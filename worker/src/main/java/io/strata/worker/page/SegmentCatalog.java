package io.strata.worker.page;

import com.google.common.primitives.Longs;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one cache folder holds, in memory and in the index alike (the rows of an open segment's
 * pages reach the index with its seal): where each page lies, the segments and their states, the
 * bytes their files take, and the files kept for a reader's pin after the index forgot them. Every
 * change is made under the owning {@link SsdTier}'s lock; look-ups take none.
 */
final class SegmentCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentCatalog.class);

  private final Path dir;
  private final KvStore index;
  private final LongSupplier nanoTime;
  private final Map<PageId, PageLocation> locations = new ConcurrentHashMap<>();
  private final Map<PageId, PageLocation> readOnlyLocations =
      Collections.unmodifiableMap(locations);
  private final Map<Long, Segment> segments = new ConcurrentHashMap<>();
  private final RetiredSegments retired = new RetiredSegments(this::deleteFile);
  private final AtomicLong used = new AtomicLong();
  private long nextSegmentId;

  SegmentCatalog(Path dir, KvStore index, LongSupplier nanoTime) {
    this.dir = dir;
    this.index = index;
    this.nanoTime = nanoTime;
  }

  /** Takes over what {@link SegmentRecovery} found at start. */
  void recovered(SegmentRecovery.Result r) {
    segments.putAll(r.segments());
    locations.putAll(r.locations());
    used.set(r.segments().values().stream().mapToLong(Segment::size).sum());
    nextSegmentId = r.nextSegmentId();
  }

  // ---- look-ups ----

  PageLocation location(PageId id) {
    return locations.get(id);
  }

  /** The segment {@code loc} lies in; null if there is none (no location, or evicted meanwhile). */
  Segment segmentOf(PageLocation loc) {
    return loc == null ? null : segments.get(loc.segment());
  }

  /** Whether {@code s} is still the catalog's segment of its id (not evicted nor closed). */
  boolean holds(Segment s) {
    return segments.get(s.id) == s;
  }

  Collection<Segment> segments() {
    return segments.values();
  }

  /** Every page's location, read-only. */
  Map<PageId, PageLocation> locations() {
    return readOnlyLocations;
  }

  int pages() {
    return locations.size();
  }

  int segmentCount() {
    return segments.size();
  }

  /** Bytes the segment files take, reserved records included. */
  long used() {
    return used.get();
  }

  // ---- changes, under the tier's lock ----

  /** Counts {@code bytes} more as used: a record's place reserved. */
  void charge(long bytes) {
    used.addAndGet(bytes);
  }

  /** Marks a location as read with its checksum holding, unless it changed meanwhile. */
  void verified(PageId id, PageLocation loc) {
    locations.replace(id, loc, loc.asVerified());
  }

  /** A new segment, its file created and its row and the next id written. */
  Segment create() throws IOException {
    Segment s = Segment.create(dir, nextSegmentId++, nanoTime.getAsLong());
    segments.put(s.id, s);
    index.write(
        new KvStore.Batch()
            .put(KeyLayout.segmentKey(s.id), Segment.state(false, 0))
            .put(KeyLayout.nextSegmentKey(), Longs.toByteArray(nextSegmentId)));
    return s;
  }

  /** The id the next segment will take. */
  long nextSegmentId() {
    return nextSegmentId;
  }

  /**
   * Seals {@code s} for good (a restart then trusts it without a scan), writing its pages' rows in
   * the same batch as its sealed state. The rows of a segment being written wait for its seal:
   * until then a restart reads the segment record by record and finds every page itself, so one
   * batch per segment replaces one index write per page (a third of a loaded 64 KiB object's
   * admission).
   */
  void seal(Segment s) {
    s.seal();
    KvStore.Batch batch = new KvStore.Batch();
    for (PageId id : s.pages) {
      PageLocation loc = locations.get(id);
      if (loc != null && loc.segment() == s.id) {
        batch.put(KeyLayout.pageKey(id), loc.encode());
      }
    }
    index.write(batch.put(KeyLayout.segmentKey(s.id), Segment.state(true, s.size())));
  }

  /**
   * Makes a page written in {@code seg} at {@code loc} findable; a record of the same page in
   * another segment is no longer referenced, and that segment goes if it is left empty. The page's
   * index row is written when {@code seg} is sealed (see {@link #seal}).
   */
  void publish(Segment seg, PageId id, PageLocation loc) {
    PageLocation before = locations.put(id, loc);
    if (before != null) {
      Segment other = segments.get(before.segment());
      if (other != null && other != seg) {
        other.pages.remove(id);
        dropIfDeserted(other);
      }
    }
    seg.pages.add(id);
    if (seg.sealed()) {
      // A write that finished after its segment was sealed: the seal's batch did not hold it.
      index.put(KeyLayout.pageKey(id), loc.encode());
    }
  }

  /**
   * Forgets a page; a sealed segment left with no page goes. The caller seals the page's segment
   * first if it is active: recovery re-reads only unsealed segments, and must not bring back a page
   * that was removed.
   */
  void forget(PageId id) {
    PageLocation loc = locations.remove(id);
    if (loc == null) {
      return;
    }
    index.delete(KeyLayout.pageKey(id));
    Segment s = segments.get(loc.segment());
    if (s != null) {
      s.pages.remove(id);
      s.hot.remove(id);
      dropIfDeserted(s);
    }
  }

  /** Drops {@code s} if it is sealed, has no page left and no write in progress. */
  void dropIfDeserted(Segment s) {
    if (s.sealed() && s.pages.isEmpty() && !s.writing() && holds(s)) {
      drop(s);
    }
  }

  /** Forgets every page of a segment and deletes its file, or retires it while it is pinned. */
  void drop(Segment s) {
    if (segments.remove(s.id) == null) {
      return;
    }
    KvStore.Batch batch = new KvStore.Batch();
    for (PageId id : s.pages) {
      PageLocation loc = locations.get(id);
      if (loc != null && loc.segment() == s.id) {
        locations.remove(id);
        batch.delete(KeyLayout.pageKey(id));
      }
    }
    batch.delete(KeyLayout.segmentKey(s.id));
    index.write(batch);
    if (s.pinnedAt(nanoTime.getAsLong())) {
      retired.add(s);
    } else {
      deleteFile(s);
    }
  }

  /** Deletes the files of retired segments whose pins have lapsed. */
  void deleteExpired() {
    retired.deleteExpired(nanoTime.getAsLong());
  }

  private void deleteFile(Segment s) {
    used.addAndGet(-s.size());
    try {
      s.delete();
    } catch (IOException e) {
      LOG.warn("cannot delete segment {}: {}", s.path, e.toString());
    }
  }

  /** Deletes every retired file, closes the segments and the index. */
  void close() {
    // Readers that opened a retired file keep it open; the others fall back to the socket.
    retired.deleteAll();
    segments.values().forEach(Segment::close);
    index.close();
  }
}
