package io.strata.master.load;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The decisions of one load job, as a state machine with no threads, I/O or clock of its own:
 * events go in (a file the walk found, a batch a worker answered or failed, the time now), and
 * decisions come out (the batches to send, whether a checkpoint is due, whether the job walks
 * again, is done or waits).
 *
 * <ul>
 *   <li><b>Window</b>: at most {@link #window} files are open (handed out and not finished), so
 *       memory stays bounded whatever the folder's size: enough for every worker's batches in
 *       flight and as many queued behind them, within [{@value #MIN_OPEN}, {@value #MAX_OPEN}].
 *   <li><b>Batches</b>: each file's owners on the ring (and the next workers, for replication) get
 *       a copy; a worker is sent batches of {@code batchSize} copies, at most {@value
 *       #IN_FLIGHT_PER_WORKER} at a time; partial batches go once no more files are coming soon
 *       (the walk is over, or the window is full).
 *   <li><b>Retries</b>: a copy a worker could not load is retried on it after a backoff (200 ms,
 *       doubling), {@value #MAX_ATTEMPTS} attempts in all, then counted failed.
 *   <li><b>Moves</b>: the copies of a batch whose worker failed (or left the ring) go to the next
 *       worker on the file's ring not holding a copy, preferring workers not failed in the last 3
 *       s; a copy moves at most {@value #MAX_MOVES} times.
 *   <li><b>Repair</b>: a worker that failed during the walk took the pages it loaded with it; once
 *       every file is done the job walks again (at most {@value #MAX_REPAIRS} times) and the files'
 *       current owners load what they lack. Only the first walk counts files.
 *   <li><b>Checkpoints</b>: due every second; {@link Progress} keeps the cursor behind every
 *       unfinished file.
 * </ul>
 *
 * Not thread-safe: the job's runner drives it from one thread.
 */
final class LoadDispatcher {
  static final int IN_FLIGHT_PER_WORKER = 2;
  static final int MAX_ATTEMPTS = 3;
  static final int MAX_MOVES = 10;
  static final int MAX_REPAIRS = 2;
  static final int MIN_OPEN = 1_000;
  static final int MAX_OPEN = 20_000;
  static final long CHECKPOINT_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final long SUSPECT_NANOS = TimeUnit.SECONDS.toNanos(3);
  static final long RETRY_BASE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** The ring of live workers, by id, as clients build it. */
  interface Ring {
    /**
     * The first {@code count} distinct workers for {@code path}, owner first; empty with none live.
     */
    List<String> ownerIds(String path, int count);

    boolean isLive(String workerId);

    Set<String> memberIds();
  }

  /** What the job's runner is to do next. */
  enum Next {
    /** Wait for answers or for {@link #nextWakeNanos}. */
    WAIT,
    /** Walk the folder again from its start, then {@link #repairStarted}. */
    WALK_AGAIN,
    /** Every file is done: record the end. */
    DONE,
    /** The job was stopped: send nothing more. */
    STOPPED
  }

  /** A batch to send: {@code files} for {@code worker} to load; its answer names {@code id}. */
  record Batch(long id, String worker, List<FileStatus> files) {}

  /**
   * One copy of one file to load, on {@code worker}; {@code seq} is the file's number in the walk.
   */
  private record Copy(long seq, FileStatus file, String worker, int attempts, int moves) {
    Copy retried() {
      return new Copy(seq, file, worker, attempts + 1, moves);
    }

    Copy movedTo(String other) {
      return new Copy(seq, file, other, attempts, moves + 1);
    }
  }

  private record Sent(String worker, List<Copy> copies) {}

  private final Ring ring;
  private final int batchSize;
  private final int replication;
  private final OpenFiles open;
  private final Map<String, ArrayDeque<Copy>> queued = new TreeMap<>();
  private final Map<String, Integer> inFlight = new HashMap<>();
  private final Map<Long, Sent> sent = new HashMap<>();
  private final Map<String, Long> suspectUntil = new HashMap<>();
  private final PriorityQueue<Retry> retries =
      new PriorityQueue<>((a, b) -> Long.compare(a.atNanos, b.atNanos));
  private Set<String> membersAtStart;
  private long nextBatch;
  private boolean walked;
  private boolean batchReady;
  private boolean listingDone;
  private boolean workerTrouble;
  private boolean stopped;
  private int repairs;
  private long lastCheckpoint;

  private record Retry(long atNanos, Copy copy) {}

  /**
   * @param before what the job had done at its last checkpoint
   * @param cursor the last file of an unbroken run done before this run (the walk resumes after it)
   */
  LoadDispatcher(
      Ring ring,
      int batchSize,
      int replication,
      LoadCounters before,
      String cursor,
      long nowNanos) {
    this.ring = ring;
    this.batchSize = Math.max(1, batchSize);
    this.replication = Math.max(1, replication);
    this.open = new OpenFiles(before, cursor);
    this.membersAtStart = ring.memberIds();
    this.lastCheckpoint = nowNanos;
  }

  // ---- the walk ----

  /** At most this many files are open at once. */
  int window() {
    int perWorker = batchSize * IN_FLIGHT_PER_WORKER * 2;
    long all = (long) perWorker * Math.max(1, ring.memberIds().size());
    return (int) Math.min(MAX_OPEN, Math.max(MIN_OPEN, all));
  }

  /** Whether the walk should hand in another file now. */
  boolean wantsFiles() {
    return !walked && !stopped && open.size() < window();
  }

  /** A file the walk found; UNAVAILABLE when no worker is live to load it. */
  void admit(FileStatus f) {
    List<String> owners = ring.ownerIds(f.getPath(), replication);
    if (owners.isEmpty()) {
      throw StrataException.unavailable("no live worker left to load " + f.getPath(), null);
    }
    long seq = open.add(f, owners, repairs == 0);
    for (String w : owners) {
      ArrayDeque<Copy> q = queue(w);
      q.add(new Copy(seq, f, w, 0, 0));
      batchReady |= q.size() >= batchSize && inFlight.getOrDefault(w, 0) < IN_FLIGHT_PER_WORKER;
    }
  }

  /**
   * Whether a full batch could go to an idle worker now: the walk stops to send it, so that loading
   * starts with the first batch listed rather than once the whole window is.
   */
  boolean batchReady() {
    return batchReady;
  }

  /** The walk found every file. */
  void walkDone() {
    walked = true;
    listingDone = true;
  }

  // ---- sending ----

  /**
   * The batches to send now: due retries first requeued; partial batches once no more files come
   * soon.
   */
  List<Batch> dispatch(long now) {
    if (stopped) {
      return List.of();
    }
    while (!retries.isEmpty() && retries.peek().atNanos - now <= 0) {
      Copy c = retries.poll().copy;
      queue(c.worker).add(c);
    }
    batchReady = false;
    boolean flush = walked || open.size() >= window();
    List<Batch> out = new ArrayList<>();
    // A copy meant for a worker that has left moves to another worker's queue, which may be new.
    for (String worker : new ArrayList<>(queued.keySet())) {
      ArrayDeque<Copy> q = queued.get(worker);
      while (!q.isEmpty()
          && inFlight.getOrDefault(worker, 0) < IN_FLIGHT_PER_WORKER
          && (q.size() >= batchSize || flush)) {
        List<Copy> copies = new ArrayList<>();
        while (copies.size() < batchSize && !q.isEmpty()) {
          copies.add(q.poll());
        }
        if (!ring.isLive(worker)) {
          moveAll(worker, copies, "worker " + worker + " left the cluster", now);
          continue;
        }
        long id = nextBatch++;
        sent.put(id, new Sent(worker, copies));
        inFlight.merge(worker, 1, Integer::sum);
        out.add(new Batch(id, worker, copies.stream().map(Copy::file).toList()));
      }
    }
    return out;
  }

  // ---- answers ----

  /** Batch {@code id} was answered: each file loaded, or why not. */
  void answered(long id, LoadFilesResponse response, long now) {
    Sent s = taken(id);
    Map<String, LoadFileResult> results = new HashMap<>();
    response.getResultsList().forEach(r -> results.put(r.getPath(), r));
    for (Copy c : s.copies) {
      LoadFileResult r = results.get(c.file.getPath());
      if (r != null && r.getOk()) {
        copyEnded(c, r.getBytesLoaded(), null, false);
      } else if (r != null && r.getCode() == StatusCode.RESOURCE_EXHAUSTED.number()) {
        // No room in its owner's cache: asking it again would not make any.
        copyEnded(c, 0, r.getError(), true);
      } else if (c.attempts + 1 >= MAX_ATTEMPTS) {
        copyEnded(c, 0, r == null ? "the worker did not report on it" : r.getError(), false);
      } else {
        retries.add(new Retry(now + (RETRY_BASE_NANOS << c.attempts), c.retried()));
      }
    }
  }

  /** Batch {@code id} got no answer: its worker failed. */
  void failed(long id, String why, long now) {
    Sent s = taken(id);
    suspectUntil.put(s.worker, now + SUSPECT_NANOS);
    moveAll(s.worker, s.copies, why, now);
  }

  private Sent taken(long id) {
    Sent s = sent.remove(id);
    if (s == null) {
      throw new IllegalArgumentException("no batch " + id + " in flight");
    }
    inFlight.merge(s.worker, -1, Integer::sum);
    // The slot it frees takes a full batch at once, not after the walk's next listing.
    batchReady |= queue(s.worker).size() >= batchSize;
    return s;
  }

  /** The copies of a worker that failed or left go to the next workers on the ring. */
  private void moveAll(String worker, List<Copy> copies, String why, long now) {
    workerTrouble = true;
    for (Copy c : copies) {
      OpenFiles.Track t = open.get(c.seq);
      if (t == null) {
        continue;
      }
      t.holders.remove(worker);
      String next = c.moves + 1 > MAX_MOVES ? null : nextHolder(c.file.getPath(), t.holders, now);
      if (next == null) {
        copyEnded(c, 0, "no worker could load it: " + why, false);
      } else {
        t.holders.add(next);
        queue(next).add(c.movedTo(next));
      }
    }
  }

  /** The first worker in the file's ring order not holding a copy, preferring those not suspect. */
  private String nextHolder(String path, List<String> holders, long now) {
    List<String> free =
        ring.ownerIds(path, Integer.MAX_VALUE).stream()
            .filter(id -> !holders.contains(id))
            .toList();
    return free.stream()
        .filter(id -> suspectUntil.getOrDefault(id, now) - now <= 0)
        .findFirst()
        .orElse(free.isEmpty() ? null : free.get(0));
  }

  private ArrayDeque<Copy> queue(String worker) {
    return queued.computeIfAbsent(worker, k -> new ArrayDeque<>());
  }

  private void copyEnded(Copy c, long bytesLoaded, String failure, boolean noRoom) {
    open.copyEnded(c.seq, bytesLoaded, failure, noRoom, repairs > 0);
  }

  // ---- time, stop, end ----

  boolean checkpointDue(long now) {
    return now - lastCheckpoint > CHECKPOINT_NANOS;
  }

  void checkpointed(long now) {
    lastCheckpoint = now;
  }

  /** When something is due without an answer coming: a retry or a checkpoint. */
  long nextWakeNanos() {
    long wake = lastCheckpoint + CHECKPOINT_NANOS;
    if (!retries.isEmpty() && retries.peek().atNanos - wake < 0) {
      wake = retries.peek().atNanos;
    }
    return wake;
  }

  /** The job was stopped, or this master no longer leads it: nothing more is sent. */
  void stop() {
    stopped = true;
  }

  Next next() {
    if (stopped) {
      return Next.STOPPED;
    }
    if (!walked || open.size() > 0) {
      return Next.WAIT;
    }
    boolean lostWorkers = !ring.memberIds().containsAll(membersAtStart);
    return repairs < MAX_REPAIRS && (workerTrouble || lostWorkers) ? Next.WALK_AGAIN : Next.DONE;
  }

  /** A walk from the folder's start begins, for files whose owners changed. */
  void repairStarted() {
    repairs++;
    workerTrouble = false;
    membersAtStart = ring.memberIds();
    walked = false;
  }

  // ---- figures ----

  /** The progress in the walk's order, for checkpoints. */
  Progress progress() {
    return open.progress();
  }

  /** Bytes loaded by repair walks (which count no files). */
  long repairLoaded() {
    return open.repairLoaded();
  }

  /** Files handed out and not finished. */
  int openFiles() {
    return open.size();
  }

  /** Done so far, and what the walk found: files done before this run count as found too. */
  LoadCounters live() {
    return open.live(listingDone);
  }
}
