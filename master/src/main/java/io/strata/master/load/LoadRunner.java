package io.strata.master.load;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadState;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Futures;
import io.strata.master.journal.MasterJournal;
import java.time.Clock;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one load job on the leader, on a thread of its own: the thin shell around its {@link
 * LoadDispatcher}. It feeds the dispatcher the folder's files (listed ahead of it by a {@link
 * WalkFeed}, resuming after the job's cursor) while it wants them, sends the batches it decides on,
 * hands it the workers' answers and the walk's wake-ups (which come back as events on this thread:
 * the dispatcher is not shared), records checkpoints and the job's end in the journal, and between
 * events sleeps until the next thing is due.
 */
final class LoadRunner implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(LoadRunner.class);
  private static final int LIST_CANDIDATES = 3;
  private static final ThreadFactory WALKS = DaemonThreads.factory("load-walk");

  /** The longest wait between looks at whether the job was stopped or this master still leads. */
  private static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final LoadJob job;
  private final WorkerStubs stubs;
  private final Rings rings;
  private final JobRecord record;
  private final LongSupplier nanoTime;
  private final BlockingQueue<Runnable> events = new LinkedBlockingQueue<>();
  private final LoadDispatcher dispatcher;
  private volatile boolean cancelled;
  private volatile boolean done;
  private volatile int openFiles;
  private volatile LoadCounters live;

  /** The walk in progress; stopped when the job's thread ends. */
  private WalkFeed feed;

  LoadRunner(
      LoadJob job,
      MasterJournal journal,
      WorkerStubs stubs,
      Rings rings,
      Clock clock,
      LongSupplier nanoTime) {
    this.job = job;
    this.stubs = stubs;
    this.rings = rings;
    this.nanoTime = nanoTime;
    this.record = new JobRecord(job, journal, clock);
    this.dispatcher =
        new LoadDispatcher(
            rings,
            job.getOptions().getBatchSize(),
            job.getOptions().getReplication(),
            job.getCounters(),
            job.getCursor(),
            nanoTime.getAsLong());
    this.live = dispatcher.live();
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
    return openFiles;
  }

  /** Done so far, and what the walk found, as of the runner's last step. */
  LoadCounters live() {
    return live;
  }

  @Override
  public void run() {
    try {
      execute();
    } catch (StrataException e) {
      if (!cancelled && e.code() != StatusCode.NOT_LEADER) {
        LOG.warn("load job {} of {} failed: {}", job.getId(), job.getPath(), e.oneLine());
        record.fail(e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.error("load job {} of {} failed", job.getId(), job.getPath(), e);
      record.fail("internal error: " + e);
    } finally {
      if (feed != null) {
        feed.close();
      }
      done = true;
    }
  }

  private void execute() {
    LOG.info(
        "load job {}: loading {} {}",
        job.getId(),
        job.getPath(),
        job.getCursor().isEmpty() ? "" : "from after " + job.getCursor());
    feed = walk(job.getCursor());
    while (!cancelled) {
      if (!record.stillRunning()) {
        dispatcher.stop();
        LOG.info("load job {} was stopped", job.getId());
        return;
      }
      // Files are admitted as the walk lists them, up to a batch an idle worker could take or an
      // answer waiting: loading starts with the first batch listed, and a worker done with its
      // batches gets more while the walk goes on.
      while (dispatcher.wantsFiles() && !dispatcher.batchReady() && events.isEmpty()) {
        FileStatus f = feed.poll();
        if (f != null) {
          dispatcher.admit(f);
        } else if (feed.over()) {
          dispatcher.walkDone();
        } else {
          break;
        }
      }
      long now = nanoTime.getAsLong();
      dispatcher.dispatch(now).forEach(this::send);
      if (dispatcher.checkpointDue(now)) {
        record.checkpoint(dispatcher.progress());
        dispatcher.checkpointed(now);
      }
      publish();
      switch (dispatcher.next()) {
        case WALK_AGAIN -> {
          LOG.info(
              "load job {}: a worker failed meanwhile; walking {} again so its files reach their"
                  + " new owners",
              job.getId(),
              job.getPath());
          feed.close();
          feed = walk("");
          dispatcher.repairStarted();
        }
        case DONE -> {
          JobRecord.Final end =
              record.finalFigures(dispatcher.progress(), dispatcher.repairLoaded());
          LoadCountersView c = new LoadCountersView(end.counters());
          record.finish(
              c.succeeded(job.getOptions().getAllowPartial())
                  ? LoadState.LOAD_SUCCEEDED
                  : LoadState.LOAD_FAILED,
              c.summary(job.getPath()),
              end);
          return;
        }
        case WAIT -> awaitEvents(dispatcher.wantsFiles() && feed.ready() ? 0 : waitNanos(now));
        case STOPPED -> {
          return;
        }
      }
    }
  }

  /**
   * The job's files after {@code cursor}, walked ahead of the runner: its tree listed flat where
   * the job says so, else folder by folder; each listing asked of whichever of the folder's first
   * owners answers.
   */
  private WalkFeed walk(String cursor) {
    String root = job.getPath();
    Iterator<FileStatus> files =
        job.getFlatWalk()
            ? FolderListing.tree(
                root, () -> rings.owners(root, LIST_CANDIDATES), stubs::treePage, cursor)
            : new TreeWalker(
                dir ->
                    new FolderListing(
                        dir, () -> rings.owners(dir, LIST_CANDIDATES), stubs::listPage),
                job.getOwnerChecked() ? this::ownerMayList : dir -> true,
                root,
                cursor);
    return WalkFeed.start(files, f -> events.add(f::woken), WALKS);
  }

  /**
   * Whether the job's owner may list {@code folder}, asked of its worker as them: a user's load
   * walks only what they could walk themselves (a store that lists flat, S3, has one mode for all).
   */
  private boolean ownerMayList(String folder) {
    try {
      stubs.checkAccess(
          rings.owner(folder),
          folder,
          new Principal(job.getOwner(), Role.USER),
          PathAccess.READ | PathAccess.SEARCH,
          "load");
      return true;
    } catch (StrataException e) {
      if (e.code() != StatusCode.PERMISSION_DENIED) {
        throw e;
      }
      LOG.debug("load job {} skips {}: {}", job.getId(), folder, e.getMessage());
      return false;
    }
  }

  private void send(LoadDispatcher.Batch batch) {
    WorkerInfo w = rings.worker(batch.worker()).orElse(null);
    if (w == null) {
      // It left between the dispatcher's look and this one.
      events.add(() -> dispatcher.failed(batch.id(), "it left the cluster", nanoTime.getAsLong()));
      return;
    }
    LoadFilesRequest req =
        LoadFilesRequest.newBuilder()
            .setJobId(job.getId())
            .setForce(job.getOptions().getForce())
            .setVerify(job.getOptions().getVerify())
            .setBandwidthBytes(bandwidthShare())
            .addAllFiles(batch.files())
            .build();
    Futures.onDone(
        stubs.load(w, req),
        (response, error) ->
            events.add(
                () -> {
                  long at = nanoTime.getAsLong();
                  if (error != null) {
                    LOG.info(
                        "load job {}: {} files move away from worker {}: {}",
                        job.getId(),
                        batch.files().size(),
                        batch.worker(),
                        error.getMessage());
                    dispatcher.failed(batch.id(), error.getMessage(), at);
                  } else {
                    dispatcher.answered(batch.id(), response, at);
                  }
                }));
  }

  /**
   * Each live worker's share of the job's bandwidth (0: unlimited); never rounds a limit to none.
   */
  private long bandwidthShare() {
    long total = job.getOptions().getBandwidthBytes();
    return total <= 0 ? 0 : Math.max(1, total / Math.max(1, rings.liveCount()));
  }

  /** Until the next retry or checkpoint is due, or the next look at whether the job goes on. */
  private long waitNanos(long now) {
    return Math.min(LOOK_NANOS, Math.max(0, dispatcher.nextWakeNanos() - now));
  }

  /** Waits up to {@code wait} for an answer; runs what came. */
  private void awaitEvents(long wait) {
    try {
      Runnable e = events.poll(wait, TimeUnit.NANOSECONDS);
      while (e != null) {
        e.run();
        e = events.poll();
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      cancelled = true;
    }
  }

  private void publish() {
    openFiles = dispatcher.openFiles();
    live = dispatcher.live();
  }
}
