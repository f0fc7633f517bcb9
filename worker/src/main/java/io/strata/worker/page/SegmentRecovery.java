package io.strata.worker.page;

import com.google.common.primitives.Longs;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a cache folder back at start, trusting nothing it cannot check:
 *
 * <ol>
 *   <li>a sealed segment whose file is as long as recorded is taken as it is;
 *   <li>any other segment (being written when the worker died) is read record by record: records
 *       whose header and crc32c hold are kept (and indexed if the index missed them), the file is
 *       cut at the first that does not, and the segment is sealed;
 *   <li>index entries pointing at a missing segment or past a segment's end are deleted;
 *   <li>segment files with no state (dropped while pinned) or no indexed page, and segment states
 *       without a file, are deleted.
 * </ol>
 *
 * Afterwards every segment file on disk is in the index, and the bytes the tier reports as used are
 * the bytes of its files.
 */
final class SegmentRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentRecovery.class);

  record Result(
      Map<Long, Segment> segments,
      Map<PageId, PageLocation> locations,
      long nextSegmentId,
      long millis) {}

  private final Path dir;
  private final KvStore index;
  private final LongSupplier nanoTime;

  SegmentRecovery(Path dir, KvStore index, LongSupplier nanoTime) {
    this.dir = dir;
    this.index = index;
    this.nanoTime = nanoTime;
  }

  Result run() throws IOException {
    long started = System.nanoTime();
    Map<Long, byte[]> states = new HashMap<>();
    index.scan(
        KeyLayout.prefix(KeyLayout.SEGMENT), (k, v) -> states.put(KeyLayout.segmentOf(k), v));
    Map<PageId, PageLocation> indexed = new HashMap<>();
    index.scan(
        KeyLayout.prefix(KeyLayout.PAGE),
        (k, v) -> indexed.put(KeyLayout.pageIdOf(k), PageLocation.decode(v)));
    KvStore.Batch fixes = new KvStore.Batch();
    Map<Long, Segment> segments = new HashMap<>();
    byte[] next = index.get(KeyLayout.nextSegmentKey());
    long maxId =
        Math.max(
            next == null ? -1 : Longs.fromByteArray(next) - 1,
            states.keySet().stream().mapToLong(Long::longValue).max().orElse(-1));
    for (long id : segmentFiles()) {
      maxId = Math.max(maxId, id);
      byte[] state = states.remove(id);
      Path path = Segment.pathOf(dir, id);
      if (state == null) {
        // Every segment's state is recorded before its first page; a file without one was
        // dropped while a reader had it pinned (its pages were evicted or freed): it stays gone.
        Files.deleteIfExists(path);
        continue;
      }
      boolean trusted = state[0] == 1 && Files.size(path) >= ByteBuffer.wrap(state, 1, 8).getLong();
      Segment seg;
      if (trusted) {
        seg = Segment.open(dir, id, true, nanoTime.getAsLong());
      } else {
        seg = Segment.open(dir, id, false, nanoTime.getAsLong());
        rescan(seg, indexed, fixes);
        seg.seal();
        fixes.put(KeyLayout.segmentKey(id), Segment.state(true, seg.size()));
      }
      segments.put(id, seg);
    }
    states.keySet().forEach(id -> fixes.delete(KeyLayout.segmentKey(id)));
    Map<PageId, PageLocation> locations = new HashMap<>();
    indexed.forEach(
        (page, loc) -> {
          Segment seg = segments.get(loc.segment());
          if (seg == null || loc.offset() + loc.length() > seg.size()) {
            fixes.delete(KeyLayout.pageKey(page));
          } else {
            locations.put(page, loc);
            seg.pages.add(page);
          }
        });
    for (Segment seg : Map.copyOf(segments).values()) {
      if (seg.pages.isEmpty()) {
        segments.remove(seg.id);
        fixes.delete(KeyLayout.segmentKey(seg.id));
        seg.delete();
      }
    }
    index.write(fixes);
    return new Result(segments, locations, maxId + 1, (System.nanoTime() - started) / 1_000_000);
  }

  /** Keeps the valid prefix of a segment that was not sealed; cuts the rest. */
  private void rescan(Segment seg, Map<PageId, PageLocation> indexed, KvStore.Batch fixes)
      throws IOException {
    long pos = 0;
    ByteBuffer header = ByteBuffer.allocate(SegmentFormat.HEADER);
    while (pos + SegmentFormat.HEADER <= seg.size()) {
      header.clear();
      seg.read(pos, header);
      SegmentFormat.Header h = SegmentFormat.parse(header.flip());
      if (h == null || pos + SegmentFormat.HEADER + h.length() > seg.size()) {
        break;
      }
      ByteBuffer data = ByteBuffer.allocate(h.length());
      seg.read(pos + SegmentFormat.HEADER, data);
      if (SegmentFormat.crc(data.flip()) != h.crc()) {
        break;
      }
      PageLocation loc = new PageLocation(seg.id, pos + SegmentFormat.HEADER, h.length(), h.crc());
      if (!loc.equals(indexed.get(h.id()))) {
        indexed.put(h.id(), loc);
        fixes.put(KeyLayout.pageKey(h.id()), loc.encode());
      }
      pos += SegmentFormat.HEADER + h.length();
    }
    if (pos < seg.size()) {
      LOG.warn(
          "segment {} was being written when the worker stopped: {} torn bytes after offset {} dropped",
          seg.path,
          seg.size() - pos,
          pos);
      seg.truncate(pos);
    }
  }

  private java.util.List<Long> segmentFiles() throws IOException {
    Path root = dir.resolve("segments");
    if (!Files.isDirectory(root)) {
      return java.util.List.of();
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("seg-\\d+"))
          .map(n -> Long.parseLong(n.substring(4)))
          .toList();
    }
  }
}
