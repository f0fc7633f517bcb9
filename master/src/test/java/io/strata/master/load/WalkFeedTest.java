package io.strata.master.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.strata.core.proto.FileStatus;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WalkFeedTest {
  /** The runner's event queue, as far as the feed is concerned. */
  private final BlockingQueue<Runnable> events = new LinkedBlockingQueue<>();

  private final List<Thread> threads = new ArrayList<>();
  private final ThreadFactory recording =
      r -> {
        Thread t = DaemonThreads.factory("test-walk").newThread(r);
        threads.add(t);
        return t;
      };

  private static FileStatus file(int i) {
    return FileStatus.newBuilder().setPath(String.format("/d/f%05d", i)).build();
  }

  /** A walk that counts the files taken from it. */
  private static Iterator<FileStatus> counted(int n, AtomicInteger taken) {
    return IntStream.range(0, n)
        .mapToObj(WalkFeedTest::file)
        .peek(f -> taken.incrementAndGet())
        .iterator();
  }

  private WalkFeed start(Iterator<FileStatus> walk) {
    return WalkFeed.start(walk, feed -> events.add(feed::woken), recording);
  }

  /** Takes files as a runner does: whatever is there, then waits to be woken. */
  private List<String> drain(WalkFeed feed) throws InterruptedException {
    List<String> got = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      FileStatus f = feed.poll();
      if (f != null) {
        got.add(f.getPath());
      } else if (feed.over()) {
        return got;
      } else {
        Runnable wake = events.poll(1, TimeUnit.SECONDS);
        if (wake != null) {
          wake.run();
        }
      }
    }
    throw new AssertionError("the walk did not end; took " + got.size());
  }

  @Test
  void everyFileComesOnce_inTheWalksOrder_wellPastWhatItHoldsAhead() throws Exception {
    int n = 3 * WalkFeed.AHEAD + 7;
    List<String> got = drain(start(counted(n, new AtomicInteger())));
    assertThat(got).hasSize(n).doesNotHaveDuplicates().isSorted();
    assertThat(events).as("at most one wake-up pending when the walk ended").hasSizeLessThan(2);
  }

  @Test
  void theWalkStopsAhead_untilTheRunnerTakesFiles() throws Exception {
    AtomicInteger taken = new AtomicInteger();
    WalkFeed feed = start(counted(5 * WalkFeed.AHEAD, taken));
    // The walk takes one more than it holds: the one it waits to put.
    await().atMost(Duration.ofSeconds(10)).until(() -> taken.get() == WalkFeed.AHEAD + 1);
    assertThat(events).as("one wake-up, not one per file").hasSize(1);
    Thread.sleep(100);
    assertThat(taken).hasValue(WalkFeed.AHEAD + 1);
    assertThat(feed.ready()).isTrue();
    assertThat(feed.over()).isFalse();
    for (int i = 0; i < 10; i++) {
      assertThat(feed.poll().getPath()).isEqualTo(file(i).getPath());
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> taken.get() == WalkFeed.AHEAD + 11);
    feed.close();
  }

  @Test
  void aWalkThatFails_failsOnTheRunnersThread_afterTheFilesItListed() throws Exception {
    Iterator<FileStatus> failing =
        new Iterator<>() {
          int i;

          @Override
          public boolean hasNext() {
            if (i == 3) {
              throw StrataException.unavailable("no live worker to list /d", null);
            }
            return true;
          }

          @Override
          public FileStatus next() {
            return file(i++);
          }
        };
    WalkFeed feed = start(failing);
    await().atMost(Duration.ofSeconds(10)).until(feed::ready);
    List<String> got = new ArrayList<>();
    assertThatThrownBy(
            () -> {
              while (true) {
                FileStatus f = feed.poll();
                if (f != null) {
                  got.add(f.getPath());
                } else if (feed.over()) {
                  return;
                }
              }
            })
        .isInstanceOf(StrataException.class)
        .hasMessageContaining("no live worker to list /d");
    assertThat(got).containsExactly("/d/f00000", "/d/f00001", "/d/f00002");
  }

  @Test
  void closing_stopsAWalkWaitingOnAListing_andItNeverCountsAsOver() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Iterator<FileStatus> hanging =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            try {
              never.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException("interrupted", e);
            }
            return false;
          }

          @Override
          public FileStatus next() {
            throw new AssertionError();
          }
        };
    WalkFeed feed = start(hanging);
    assertThat(feed.ready()).isFalse();
    feed.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> !threads.get(0).isAlive());
    assertThatThrownBy(feed::over).isInstanceOf(IllegalStateException.class);
  }
}
