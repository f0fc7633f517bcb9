package io.strata.master.load;

import io.strata.core.proto.FileStatus;
import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A job's walk on a thread of its own, up to {@link #AHEAD} files ahead of its runner: the runner
 * takes what is listed and never waits on a listing, so answers are handled and batches sent while
 * the next page is asked of a worker (each page of an object store's thousand keys took 30-80 ms,
 * during which the runner used to hold its workers' answers). Files come out in the walk's order.
 */
final class WalkFeed implements AutoCloseable {
  /** Two full pages: one being taken while the next is listed. */
  static final int AHEAD = 2 * FolderListing.PAGE;

  private final BlockingQueue<FileStatus> files = new ArrayBlockingQueue<>(AHEAD);
  private final Consumer<WalkFeed> wake;
  private final AtomicBoolean wakePending = new AtomicBoolean();
  private final Thread thread;
  private volatile boolean finished;
  private volatile RuntimeException failure;

  /**
   * Starts walking {@code walk} on a thread from {@code threads}.
   *
   * @param wake called with this feed from the walk's thread when files or the walk's end are there
   *     to take; it should make the runner call {@link #woken} and then take them (at most one call
   *     is pending at a time)
   */
  static WalkFeed start(Iterator<FileStatus> walk, Consumer<WalkFeed> wake, ThreadFactory threads) {
    WalkFeed feed = new WalkFeed(walk, wake, threads);
    feed.thread.start();
    return feed;
  }

  private WalkFeed(Iterator<FileStatus> walk, Consumer<WalkFeed> wake, ThreadFactory threads) {
    this.wake = wake;
    this.thread = threads.newThread(() -> feed(walk));
  }

  private void feed(Iterator<FileStatus> walk) {
    boolean complete = false;
    try {
      while (walk.hasNext()) {
        files.put(walk.next());
        signal();
      }
      complete = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      if (!complete && failure == null) {
        // Stopped, or an Error: a walk cut short must never look over.
        failure = new IllegalStateException("the walk of the job's files stopped before its end");
      }
      finished = true;
      signal();
    }
  }

  private void signal() {
    if (wakePending.compareAndSet(false, true)) {
      wake.accept(this);
    }
  }

  /** The runner saw the wake-up: files put from now on wake it again. */
  void woken() {
    wakePending.set(false);
  }

  /** The next file in the walk's order, or null if none is listed yet or the walk is over. */
  FileStatus poll() {
    return files.poll();
  }

  /** Whether a file or the walk's end is there to take now. */
  boolean ready() {
    return finished || !files.isEmpty();
  }

  /**
   * Whether every file of the walk was taken; a walk that failed throws its failure here, on the
   * runner's thread.
   */
  boolean over() {
    if (!finished || !files.isEmpty()) {
      return false;
    }
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
    return true;
  }

  /** Stops the walk (a listing in flight is cancelled); what it listed and nobody took is lost. */
  @Override
  public void close() {
    thread.interrupt();
  }
}
