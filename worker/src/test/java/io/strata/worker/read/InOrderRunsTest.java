package io.strata.worker.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InOrderRunsTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** Run {@code n} of {@code reader}, which reads on from its run before. */
  private record Run(String reader, int n) {
    String start() {
      return reader + "@" + n;
    }

    String end() {
      return reader + "@" + (n + 1);
    }
  }

  private static void submit(InOrderRuns<String, Run> runs, Run run) {
    runs.submit(run.start(), run.end(), run);
  }

  @Test
  void runsThatContinueOneAnother_areReadOneAtATime_inOrder_whileOtherChainsAreReadAtOnce()
      throws Exception {
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger chainsAtOnce = new AtomicInteger();
    AtomicInteger mostChainsAtOnce = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(2 * 50);
    InOrderRuns<String, Run> runs =
        new InOrderRuns<>(
            pool,
            run -> {
              int in =
                  inside.computeIfAbsent(run.reader(), f -> new AtomicInteger()).incrementAndGet();
              most.accumulateAndGet(in, Math::max);
              mostChainsAtOnce.accumulateAndGet(chainsAtOnce.incrementAndGet(), Math::max);
              try {
                Thread.sleep(1);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              order
                  .computeIfAbsent(
                      run.reader(), f -> Collections.synchronizedList(new ArrayList<>()))
                  .add(run.n());
              chainsAtOnce.decrementAndGet();
              inside.get(run.reader()).decrementAndGet();
              done.countDown();
            },
            (run, e) -> {
              throw new AssertionError("rejected " + run, e);
            });
    for (int i = 0; i < 50; i++) {
      submit(runs, new Run("a", i));
      // Another reader of the same file, further on: a chain of its own.
      submit(runs, new Run("a+", 1000 + i));
    }
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      expected.add(i);
    }
    assertThat(order.get("a")).isEqualTo(expected);
    assertThat(order.get("a+")).isEqualTo(expected.stream().map(i -> 1000 + i).toList());
    assertThat(most.get()).as("never two runs of one chain at once").isEqualTo(1);
    assertThat(mostChainsAtOnce.get()).as("the two chains read at once").isEqualTo(2);
  }

  @Test
  void runsTheExecutorWillNotTake_areEndedAsRejected_withThoseWaitingBehindThem() throws Exception {
    List<Integer> rejected = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService one = Executors.newSingleThreadExecutor();
    InOrderRuns<String, Run> runs =
        new InOrderRuns<>(
            one,
            run -> {
              reading.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            (run, e) -> {
              assertThat(e).isInstanceOf(RejectedExecutionException.class);
              rejected.add(run.n());
            });
    submit(runs, new Run("f", 0));
    assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
    submit(runs, new Run("f", 1));
    submit(runs, new Run("f", 2));
    one.shutdown();
    release.countDown();
    assertThat(one.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(rejected).containsExactly(1, 2);
    submit(runs, new Run("g", 3));
    assertThat(rejected).containsExactly(1, 2, 3);
  }
}
