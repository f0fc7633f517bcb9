package io.strata.master.load;

import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A job's progress in the walk's order. Files finish out of order; the checkpoint only moves over
 * an unbroken run of finished files, so that a new leader resuming after the cursor misses nothing
 * (and redoes at most what finished beyond it, cheaply: cached pages are skipped). Not thread-safe:
 * the job's runner owns it.
 */
final class Progress {
  /**
   * One finished file: its bytes (per copy), bytes read from the UFS, and why it failed, if it did.
   */
  /** A file's end: {@code failure} null when loaded; {@code noRoom} when a cache had no room. */
  record Finished(String path, long bytes, long bytesLoaded, String failure, boolean noRoom) {}

  private final TreeMap<Long, Finished> ahead = new TreeMap<>();
  private LoadCounters committed;
  private String cursor;
  private long mark;
  private final List<LoadFailure> newFailures = new ArrayList<>();
  private LoadCounters aheadCounters = LoadCounters.getDefaultInstance();

  Progress(LoadCounters committed, String cursor) {
    this.committed = committed;
    this.cursor = cursor;
  }

  /** File number {@code seq} (0, 1, 2... in the walk's order) is done. */
  void finish(long seq, Finished f) {
    ahead.put(seq, f);
    aheadCounters = add(aheadCounters, f);
    while (ahead.containsKey(mark)) {
      Finished done = ahead.remove(mark++);
      aheadCounters = subtract(aheadCounters, done);
      committed = add(committed, done);
      cursor = done.path();
      if (done.failure() != null) {
        newFailures.add(
            LoadFailure.newBuilder().setPath(done.path()).setReason(done.failure()).build());
      }
    }
  }

  LoadCounters committed() {
    return committed;
  }

  String cursor() {
    return cursor;
  }

  /** Failures committed since the last call. */
  List<LoadFailure> takeNewFailures() {
    List<LoadFailure> out = List.copyOf(newFailures);
    newFailures.clear();
    return out;
  }

  /** Puts back failures taken for a checkpoint that did not get through. */
  void restoreFailures(List<LoadFailure> failures) {
    newFailures.addAll(0, failures);
  }

  /** Everything finished so far, checkpointed or not: what an operator watching the job sees. */
  LoadCounters live() {
    return merge(committed, aheadCounters);
  }

  private static LoadCounters add(LoadCounters c, Finished f) {
    return c.toBuilder()
        .setFiles(c.getFiles() + 1)
        .setFilesFailed(c.getFilesFailed() + (f.failure() != null ? 1 : 0))
        .setBytesFailed(c.getBytesFailed() + (f.failure() != null ? f.bytes() : 0))
        .setFilesNoRoom(c.getFilesNoRoom() + (f.failure() != null && f.noRoom() ? 1 : 0))
        .setBytes(c.getBytes() + f.bytes())
        .setBytesLoaded(c.getBytesLoaded() + f.bytesLoaded())
        .build();
  }

  private static LoadCounters subtract(LoadCounters c, Finished f) {
    return c.toBuilder()
        .setFiles(c.getFiles() - 1)
        .setFilesFailed(c.getFilesFailed() - (f.failure() != null ? 1 : 0))
        .setBytesFailed(c.getBytesFailed() - (f.failure() != null ? f.bytes() : 0))
        .setFilesNoRoom(c.getFilesNoRoom() - (f.failure() != null && f.noRoom() ? 1 : 0))
        .setBytes(c.getBytes() - f.bytes())
        .setBytesLoaded(c.getBytesLoaded() - f.bytesLoaded())
        .build();
  }

  private static LoadCounters merge(LoadCounters a, LoadCounters b) {
    return LoadCounters.newBuilder()
        .setFiles(a.getFiles() + b.getFiles())
        .setFilesFailed(a.getFilesFailed() + b.getFilesFailed())
        .setBytesFailed(a.getBytesFailed() + b.getBytesFailed())
        .setFilesNoRoom(a.getFilesNoRoom() + b.getFilesNoRoom())
        .setBytes(a.getBytes() + b.getBytes())
        .setBytesLoaded(a.getBytesLoaded() + b.getBytesLoaded())
        .build();
  }
}
