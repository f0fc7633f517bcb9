package io.strata.master.load;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadCounters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The files of a load job handed out and not finished, each with its copies; a file whose last copy
 * ends goes into the job's {@link Progress} (or, on a repair walk, only adds to the bytes loaded).
 * Not thread-safe: owned by the job's {@link LoadDispatcher}.
 */
final class OpenFiles {
  /** A file whose copies are being loaded. */
  static final class Track {
    final FileStatus file;
    final int copies;

    /** The workers given a copy: a copy that moves never lands beside another. */
    final List<String> holders;

    int left;
    long bytesLoaded;
    String failure;
    boolean noRoom;

    Track(FileStatus file, List<String> holders) {
      this.file = file;
      this.copies = holders.size();
      this.left = copies;
      this.holders = new ArrayList<>(holders);
    }
  }

  private final LoadCounters before;
  private final Progress progress;
  private final Map<Long, Track> open = new HashMap<>();
  private long nextSeq;
  private long listedFiles;
  private long listedBytes;
  private long repairLoaded;

  /**
   * @param before what the job had done at its last checkpoint
   * @param cursor where that checkpoint left the walk
   */
  OpenFiles(LoadCounters before, String cursor) {
    this.before = before;
    this.progress = new Progress(before, cursor);
  }

  /** Opens a file found by the walk, a copy for each of {@code holders}; returns its number. */
  long add(FileStatus f, List<String> holders, boolean counted) {
    if (counted) {
      listedFiles++;
      listedBytes += f.getLength() * holders.size();
    }
    long seq = nextSeq++;
    open.put(seq, new Track(f, holders));
    return seq;
  }

  /** The file numbered {@code seq}, or null once it has finished. */
  Track get(long seq) {
    return open.get(seq);
  }

  /**
   * One copy of file {@code seq} ended: loaded ({@code failure} null) or not ({@code noRoom}: a
   * cache had no room for it).
   */
  void copyEnded(long seq, long bytesLoaded, String failure, boolean noRoom, boolean repair) {
    Track t = open.get(seq);
    if (t == null) {
      return;
    }
    t.bytesLoaded += bytesLoaded;
    if (failure != null) {
      t.failure = failure;
      t.noRoom = noRoom;
    }
    if (--t.left > 0) {
      return;
    }
    open.remove(seq);
    if (repair) {
      repairLoaded += t.bytesLoaded;
      return;
    }
    progress.finish(
        seq,
        new Progress.Finished(
            t.file.getPath(), t.file.getLength() * t.copies, t.bytesLoaded, t.failure, t.noRoom));
  }

  int size() {
    return open.size();
  }

  Progress progress() {
    return progress;
  }

  long repairLoaded() {
    return repairLoaded;
  }

  /** Done so far, and what the walk found: files done before this run count as found too. */
  LoadCounters live(boolean listingDone) {
    return progress.live().toBuilder()
        .setFilesListed(before.getFiles() + listedFiles)
        .setBytesListed(before.getBytes() + listedBytes)
        .setListingDone(listingDone)
        .build();
  }
}
