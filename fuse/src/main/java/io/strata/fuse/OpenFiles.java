package io.strata.fuse;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The files open through the mount, by the handle FUSE passes back on every call, and the writer of
 * each path (a file has at most one). Thread-safe.
 */
final class OpenFiles {
  private final AtomicLong nextHandle = new AtomicLong(1);
  private final Map<Long, OpenFile> byHandle = new ConcurrentHashMap<>();
  private final Map<String, OpenFile.Writer> writers = new ConcurrentHashMap<>();
  private final Map<String, Update> updates = new ConcurrentHashMap<>();

  long add(OpenFile file) {
    long handle = nextHandle.getAndIncrement();
    byHandle.put(handle, file);
    return handle;
  }

  /**
   * Registers the writer of its path; false if the path already has one that is not published yet.
   * A published writer only waits for its release, which the kernel sends after close(2) returns:
   * the next writer need not wait for it.
   */
  boolean addWriter(OpenFile.Writer writer) {
    return writers.compute(writer.path, (p, old) -> old == null || old.committed ? writer : old)
        == writer;
  }

  /** Registers a file changed in place, so that getattr and truncate of its path find it. */
  void addUpdate(Update u) {
    updates.put(u.path, u);
  }

  void removeUpdate(Update u) {
    updates.remove(u.path, u);
  }

  /** The file open to change in place at {@code path}, changed and not published yet. */
  Optional<Update> updateOf(String path) {
    return Optional.ofNullable(updates.get(path)).filter(Update::dirty);
  }

  /** {@code handle} is served by {@code next} from now on instead of {@code writer}. */
  void replace(long handle, OpenFile.Writer writer, OpenFile next) {
    byHandle.put(handle, next);
    writers.remove(writer.path, writer);
  }

  OpenFile get(long handle) {
    return byHandle.get(handle);
  }

  Optional<OpenFile.Writer> writerOf(String path) {
    return Optional.ofNullable(writers.get(path));
  }

  OpenFile remove(long handle) {
    OpenFile f = byHandle.remove(handle);
    if (f instanceof OpenFile.Writer w) {
      writers.remove(w.path, w);
    }
    return f;
  }

  Iterable<OpenFile> all() {
    return byHandle.values();
  }
}
