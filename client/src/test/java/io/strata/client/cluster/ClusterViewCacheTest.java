package io.strata.client.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.strata.core.proto.ClusterView;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterViewCacheTest {
  private static final Duration INTERVAL = Duration.ofSeconds(5);

  /**
   * The master as the cache sees it: each fetch takes the next answer the test gives (a view, or an
   * error to throw), waiting for it if none is given yet.
   */
  private static final class Answers implements Supplier<ClusterView> {
    final BlockingQueue<Object> next = new LinkedBlockingQueue<>();
    final AtomicInteger asked = new AtomicInteger();

    @Override
    public ClusterView get() {
      asked.incrementAndGet();
      Object answer;
      try {
        answer = next.poll(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw StrataException.unavailable("interrupted", e);
      }
      if (answer instanceof RuntimeException e) {
        throw e;
      }
      if (answer == null) {
        throw StrataException.unavailable("the test gave no answer", null);
      }
      return (ClusterView) answer;
    }
  }

  private final Answers master = new Answers();
  private final AtomicLong now = new AtomicLong();
  private final ClusterViewCache cache =
      new ClusterViewCache(master, () -> INTERVAL, 16, now::get, v -> {});

  @AfterEach
  void close() {
    cache.close();
  }

  private static ClusterView view(String... liveWorkers) {
    ClusterView.Builder v = ClusterView.newBuilder();
    for (String id : liveWorkers) {
      v.addWorkers(WorkerInfo.newBuilder().setId(id).setState(WorkerState.LIVE));
    }
    return v.build();
  }

  private static List<String> ids(ClusterViewCache.Snapshot s) {
    return s.view().getWorkersList().stream().map(WorkerInfo::getId).toList();
  }

  private static StrataException masterDown() {
    return new StrataException(StatusCode.UNAVAILABLE, "no master answered");
  }

  @Test
  void theFirstUseWaitsForAView_andUsesWithinTheIntervalAskNothing() {
    master.next.add(view("w1"));

    assertThat(ids(cache.get())).containsExactly("w1");
    now.addAndGet(INTERVAL.toNanos());
    assertThat(ids(cache.get())).containsExactly("w1");
    assertThat(master.asked).hasValue(1);
  }

  @Test
  void aStaleView_isServedAtOnce_whileOneFetchRunsInTheBackground() {
    master.next.add(view("w1"));
    cache.get();
    now.addAndGet(INTERVAL.toNanos() + 1);

    // The master has no answer yet: had get() waited for it, these calls would not return.
    for (int i = 0; i < 5; i++) {
      assertThat(ids(cache.get())).containsExactly("w1");
    }
    await().untilAsserted(() -> assertThat(master.asked).hasValue(2));

    master.next.add(view("w1", "w2"));
    await().untilAsserted(() -> assertThat(ids(cache.get())).containsExactly("w1", "w2"));
    assertThat(master.asked).hasValue(2);
  }

  @Test
  void aMasterThatCannotAnswer_leavesTheView_andIsAskedAgainOnlyAfterAPause() {
    master.next.add(view("w1"));
    cache.get();
    now.addAndGet(INTERVAL.toNanos() + 1);
    master.next.add(masterDown());

    assertThat(ids(cache.get())).containsExactly("w1");
    await().untilAsserted(() -> assertThat(master.next).isEmpty());
    for (int i = 0; i < 5; i++) {
      assertThat(ids(cache.get())).containsExactly("w1");
    }
    assertThat(master.asked).hasValue(2);

    now.addAndGet(ClusterViewCache.RETRY_AFTER_FAILURE.toNanos());
    master.next.add(view("w2"));
    await().untilAsserted(() -> assertThat(ids(cache.get())).containsExactly("w2"));
    assertThat(master.asked).hasValue(3);
  }

  @Test
  void callersWithNoView_shareOneFetch_andHearItsFailure() throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<ClusterViewCache.Snapshot>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(callers.submit(cache::get));
      }
      await().untilAsserted(() -> assertThat(master.asked).hasValue(1));
      master.next.add(masterDown());

      for (Future<ClusterViewCache.Snapshot> call : calls) {
        assertThatThrownBy(() -> call.get(60, TimeUnit.SECONDS))
            .hasCauseInstanceOf(StrataException.class)
            .hasMessageContaining("no master answered");
      }
      assertThat(master.asked).hasValue(1);
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void anUnreachableWorker_keepsTheViewForCallers_andBringsAFreshOneInTheBackground() {
    master.next.add(view("w1", "w2"));
    cache.get();

    cache.invalidate();
    assertThat(ids(cache.get())).containsExactly("w1", "w2");
    master.next.add(view("w2"));

    await().untilAsserted(() -> assertThat(ids(cache.get())).containsExactly("w2"));
    assertThat(cache.owners("/a", 3)).extracting(WorkerInfo::getId).containsExactly("w2");
    assertThat(master.asked).hasValue(2);
  }

  @Test
  void aViewWithNoLiveWorker_failsTheCall_andIsAskedAgain() {
    master.next.add(view());
    cache.get();

    assertThatThrownBy(() -> cache.owners("/a", 1))
        .isInstanceOf(StrataException.class)
        .hasMessageContaining("no live worker");
    master.next.add(view("w1"));

    await()
        .ignoreExceptionsInstanceOf(StrataException.class)
        .untilAsserted(
            () -> assertThat(cache.owners("/a", 1)).extracting(WorkerInfo::getId).contains("w1"));
  }

  @Test
  void refresh_waitsForAFreshView() {
    master.next.add(view("w1"));
    cache.get();
    master.next.add(view("w3"));

    assertThat(ids(cache.refresh())).containsExactly("w3");
    assertThat(ids(cache.get())).containsExactly("w3");
  }
}
