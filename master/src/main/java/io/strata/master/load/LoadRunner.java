package io.strata.master.load;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.Futures;
import io.strata.master.journal.MasterJournal;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one load job on the leader, on a thread of its own: walks the folder (streamed, resuming
 * after the job's cursor), gives each file's owners on the ring (and the next workers, for
 * replication) batches to load, at most {@value #IN_FLIGHT_PER_WORKER} batches per worker at a
 * time, retries a file that failed with backoff, moves the files of a worker that stopped answering
 * to the next one on the ring, and checkpoints progress into the journal every second. At most a
 * window of files is open at once, so memory stays bounded whatever the folder's size. Answers from
 * workers come back as events on the runner's own thread: no state is shared.
 *
 * <p>A worker that fails during the walk takes the pages it had loaded with it; so the job then
 * walks the folder once more (at most {@value #MAX_REPAIRS} times), and the files' current owners
 * load what they lack (what they have is skipped). Only the first walk counts files.
 */
final class LoadRunner implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(LoadRunner.class);
  static final int IN_FLIGHT_PER_WORKER = 2;
  private static final int MAX_ATTEMPTS = 3;
  private static final int MAX_MOVES = 10;
  private static final int MAX_REPAIRS = 2;
  private static final int LIST_CANDIDATES = 3;
  private static final long CHECKPOINT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long SUSPECT_NANOS = TimeUnit.SECONDS.toNanos(3);
  private static final long RETRY_BASE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

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

  private record Retry(long atNanos, Copy copy) {}

  /** A file whose copies are being loaded. */
  private static final class Track {
    final FileStatus file;
    final int copies;

    /** The workers given a copy: a copy that moves never lands beside another. */
    final List<String> holders;

    int left;
    long bytesLoaded;
    String failure;

    Track(FileStatus file, int copies) {
      this.file = file;
      this.copies = copies;
      this.left = copies;
      this.holders = new ArrayList<>(copies);
    }
  }

  private final LoadJob job;
  private final WorkerStubs stubs;
  private final Rings rings;
  private final Progress progress;
  private final JobRecord record;
  private final BlockingQueue<Runnable> events = new LinkedBlockingQueue<>();
  private final Map<Long, Track> open = new HashMap<>();
  private final Map<String, ArrayDeque<Copy>> pending = new HashMap<>();
  private final Map<String, Integer> inFlight = new HashMap<>();
  private final Map<String, Long> suspectUntil = new HashMap<>();
  private final PriorityQueue<Retry> retries =
      new PriorityQueue<>((a, b) -> Long.compare(a.atNanos, b.atNanos));
  private final int batchSize;
  private final int replication;
  private volatile boolean cancelled;
  private volatile boolean done;
  private long nextSeq;
  private volatile long listedBytes;
  private volatile long listedFiles;
  private volatile boolean listingDone;
  private boolean workerTrouble;
  private int repairs;
  private volatile int openCount;
  private long repairLoaded;

  LoadRunner(LoadJob job, MasterJournal journal, WorkerStubs stubs, Rings rings, Clock clock) {
    this.job = job;
    this.stubs = stubs;
    this.rings = rings;
    this.progress = new Progress(job.getCounters(), job.getCursor());
    this.batchSize = Math.max(1, job.getOptions().getBatchSize());
    this.replication = Math.max(1, job.getOptions().getReplication());
    this.record = new JobRecord(job, journal, progress, clock);
  }

  long id() {
    return job.getId();
  }

  /** This master no longer leads: stop without touching the job (the next leader resumes it). */
  void cancel() {
    cancelled = true;
  }

  boolean done() {
    return done;
  }

  /** Files handed out and not finished yet. */
  int openFiles() {
    return openCount;
  }

  /** Done so far, and what the walk found: files done before this run count as found too. */
  io.strata.core.proto.LoadCounters live() {
    synchronized (progress) {
      io.strata.core.proto.LoadCounters c = progress.live();
      return c.toBuilder()
          .setFilesListed(job.getCounters().getFiles() + listedFiles)
          .setBytesListed(job.getCounters().getBytes() + listedBytes)
          .setListingDone(listingDone)
          .build();
    }
  }

  @Override
  public void run() {
    try {
      execute();
    } catch (StrataException e) {
      if (!cancelled && e.code() != StatusCode.NOT_LEADER) {
        LOG.warn("load job {} of {} failed: {}", job.getId(), job.getPath(), e.oneLine());
        record.finish(LoadState.LOAD_FAILED, e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.error("load job {} of {} failed", job.getId(), job.getPath(), e);
      record.finish(LoadState.LOAD_FAILED, "internal error: " + e);
    } finally {
      done = true;
    }
  }

  private void execute() {
    LOG.info(
        "load job {}: loading {} {}",
        job.getId(),
        job.getPath(),
        job.getCursor().isEmpty() ? "" : "from after " + job.getCursor());
    TreeWalker walker = walk(job.getCursor());
    java.util.Set<String> members = rings.memberIds();
    boolean walked = false;
    long lastCheckpoint = System.nanoTime();
    while (!cancelled) {
      if (!record.stillRunning()) {
        LOG.info("load job {} was stopped", job.getId());
        return;
      }
      int window = Math.min(20_000, Math.max(1_000, batchSize * 4 * rings.liveCount()));
      while (!walked && open.size() < window) {
        if (!walker.hasNext()) {
          walked = true;
          listingDone = true;
        } else {
          admit(walker.next());
        }
      }
      openCount = open.size();
      requeueDueRetries();
      dispatch(walked || open.size() >= window);
      drainEvents();
      if (System.nanoTime() - lastCheckpoint > CHECKPOINT_NANOS) {
        record.checkpoint();
        lastCheckpoint = System.nanoTime();
      }
      if (walked && open.isEmpty() && needsRepair(members)) {
        repairs++;
        workerTrouble = false;
        members = rings.memberIds();
        LOG.info(
            "load job {}: a worker failed meanwhile; walking {} again so its files reach their new owners",
            job.getId(),
            job.getPath());
        walker = walk("");
        walked = false;
        continue;
      }
      if (walked && open.isEmpty()) {
        LoadCountersView c = new LoadCountersView(record.finalCheckpoint(repairLoaded));
        record.finish(
            c.failed() > 0 ? LoadState.LOAD_FAILED : LoadState.LOAD_SUCCEEDED,
            c.summary(job.getPath()));
        return;
      }
    }
  }

  /**
   * The job's files after {@code cursor}; each folder listed by whichever of its first owners
   * answers.
   */
  private TreeWalker walk(String cursor) {
    return new TreeWalker(
        dir -> new FolderListing(dir, () -> rings.owners(dir, LIST_CANDIDATES), stubs::listPage),
        job.getPath(),
        cursor);
  }

  private boolean needsRepair(java.util.Set<String> membersAtStart) {
    return repairs < MAX_REPAIRS
        && (workerTrouble || !rings.memberIds().containsAll(membersAtStart));
  }

  private void admit(FileStatus f) {
    List<WorkerInfo> owners = rings.owners(f.getPath(), replication);
    if (owners.isEmpty()) {
      throw StrataException.unavailable("no live worker left to load " + job.getPath(), null);
    }
    long seq;
    synchronized (progress) {
      seq = nextSeq++;
      if (repairs == 0) {
        listedFiles++;
        listedBytes += f.getLength() * owners.size();
      }
    }
    Track t = new Track(f, owners.size());
    open.put(seq, t);
    for (WorkerInfo w : owners) {
      t.holders.add(w.getId());
      queue(w.getId()).add(new Copy(seq, f, w.getId(), 0, 0));
    }
  }

  private void requeueDueRetries() {
    long now = System.nanoTime();
    while (!retries.isEmpty() && retries.peek().atNanos - now <= 0) {
      Copy c = retries.poll().copy;
      queue(c.worker).add(c);
    }
  }

  /** Sends full batches; partial ones too when {@code flush} (no more files are coming soon). */
  private void dispatch(boolean flush) {
    // A copy sent to a worker that has left moves to another worker's queue, which may be new.
    for (String workerId : new ArrayList<>(pending.keySet())) {
      ArrayDeque<Copy> q = pending.get(workerId);
      while (!q.isEmpty()
          && inFlight.getOrDefault(workerId, 0) < IN_FLIGHT_PER_WORKER
          && (q.size() >= batchSize || flush)) {
        List<Copy> batch = new ArrayList<>();
        while (batch.size() < batchSize && !q.isEmpty()) {
          batch.add(q.poll());
        }
        send(workerId, batch);
      }
    }
  }

  private void send(String workerId, List<Copy> batch) {
    WorkerInfo w = rings.worker(workerId).orElse(null);
    if (w == null) {
      moveAll(workerId, batch, "worker " + workerId + " left the cluster");
      return;
    }
    LoadFilesRequest.Builder req =
        LoadFilesRequest.newBuilder()
            .setJobId(job.getId())
            .setForce(job.getOptions().getForce())
            .setVerify(job.getOptions().getVerify())
            .setBandwidthBytes(bandwidthShare());
    batch.forEach(c -> req.addFiles(c.file));
    inFlight.merge(workerId, 1, Integer::sum);
    Futures.onDone(
        stubs.load(w, req.build()),
        (response, error) -> events.add(() -> answered(workerId, batch, response, error)));
  }

  /**
   * Each live worker's share of the job's bandwidth (0: unlimited); never rounds a limit down to
   * none.
   */
  private long bandwidthShare() {
    long total = job.getOptions().getBandwidthBytes();
    return total <= 0 ? 0 : Math.max(1, total / Math.max(1, rings.liveCount()));
  }

  private void answered(
      String workerId, List<Copy> batch, LoadFilesResponse response, Throwable error) {
    inFlight.merge(workerId, -1, Integer::sum);
    if (error != null) {
      suspectUntil.put(workerId, System.nanoTime() + SUSPECT_NANOS);
      moveAll(workerId, batch, error.getMessage());
      return;
    }
    Map<String, LoadFileResult> results = new HashMap<>();
    response.getResultsList().forEach(r -> results.put(r.getPath(), r));
    for (Copy c : batch) {
      LoadFileResult r = results.get(c.file.getPath());
      if (r != null && r.getOk()) {
        copyEnded(c, r.getBytesLoaded(), null);
      } else {
        String why = r == null ? "the worker did not report on it" : r.getError();
        if (c.attempts + 1 >= MAX_ATTEMPTS) {
          copyEnded(c, 0, why);
        } else {
          retries.add(new Retry(System.nanoTime() + (RETRY_BASE_NANOS << c.attempts), c.retried()));
        }
      }
    }
  }

  /** The copies of a worker that failed or left go to the next workers on the ring. */
  private void moveAll(String workerId, List<Copy> batch, String why) {
    workerTrouble = true;
    LOG.info(
        "load job {}: {} files move away from worker {}: {}",
        job.getId(),
        batch.size(),
        workerId,
        why);
    for (Copy c : batch) {
      Track t = open.get(c.seq);
      if (t == null) {
        continue;
      }
      t.holders.remove(workerId);
      String next = c.moves + 1 > MAX_MOVES ? null : nextHolder(c.file.getPath(), t.holders);
      if (next == null) {
        copyEnded(c, 0, "no worker could load it: " + why);
      } else {
        t.holders.add(next);
        queue(next).add(c.movedTo(next));
      }
    }
  }

  /**
   * The first worker in the file's ring order not holding a copy, preferring those not suspected of
   * being down.
   */
  private String nextHolder(String path, List<String> holders) {
    long now = System.nanoTime();
    List<String> free =
        rings.owners(path, Integer.MAX_VALUE).stream()
            .map(WorkerInfo::getId)
            .filter(id -> !holders.contains(id))
            .toList();
    return free.stream()
        .filter(id -> suspectUntil.getOrDefault(id, now) - now <= 0)
        .findFirst()
        .orElse(free.isEmpty() ? null : free.get(0));
  }

  private ArrayDeque<Copy> queue(String workerId) {
    return pending.computeIfAbsent(workerId, k -> new ArrayDeque<>());
  }

  private void copyEnded(Copy c, long bytesLoaded, String failure) {
    Track t = open.get(c.seq);
    if (t == null) {
      return;
    }
    t.bytesLoaded += bytesLoaded;
    if (failure != null) {
      t.failure = failure;
    }
    if (--t.left == 0) {
      open.remove(c.seq);
      if (repairs > 0) {
        repairLoaded += t.bytesLoaded;
        return;
      }
      synchronized (progress) {
        progress.finish(
            c.seq,
            new Progress.Finished(
                t.file.getPath(), t.file.getLength() * t.copies, t.bytesLoaded, t.failure));
      }
    }
  }

  private void drainEvents() {
    try {
      Runnable e = events.poll(20, TimeUnit.MILLISECONDS);
      while (e != null) {
        e.run();
        e = events.poll();
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      cancelled = true;
    }
  }
}
