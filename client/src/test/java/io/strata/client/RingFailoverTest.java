package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.proto.WorkerInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The failover policy against a scripted ring: which workers are asked, in which order, and when.
 */
class RingFailoverTest {
  private final ScriptedRing ring = new ScriptedRing("a", "b", "c", "d", "e");
  private final AtomicBoolean fallbackEnabled = new AtomicBoolean(true);
  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "failover-test"));
  private final RingFailover failover = new RingFailover(ring, fallbackEnabled::get, executor);

  /** Each worker's scripted answer: a value, or the failure it throws. */
  private final Map<String, StatusCode> failures = new HashMap<>();

  private final List<String> asked = new ArrayList<>();

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
  }

  private String answer(WorkerInfo w, int n) {
    asked.add(w.getId() + "#" + n);
    StatusCode code = failures.get(w.getId());
    if (code != null) {
      throw new StrataException(code, "scripted " + code + " from " + w.getId());
    }
    return "from " + w.getId();
  }

  @Test
  void theOwnerAnswers_noOtherWorkerIsAsked_andTheViewIsKept() {
    assertThat(failover.call("/f", this::answer, null)).isEqualTo("from a");
    assertThat(asked).containsExactly("a#0");
    assertThat(ring.invalidations).isZero();
  }

  @Test
  void workerFailures_moveOnAlongTheRing_droppingTheViewEachTime() {
    failures.put("a", StatusCode.UNAVAILABLE);
    failures.put("b", StatusCode.DEADLINE_EXCEEDED);
    assertThat(failover.call("/f", this::answer, null)).isEqualTo("from c");
    assertThat(asked).containsExactly("a#0", "b#1", "c#2");
    assertThat(ring.invalidations).isEqualTo(2);
  }

  @Test
  void aWorkerAnsweringNonsense_isAWorkerFailureToo() {
    failures.put("a", StatusCode.INTERNAL);
    assertThat(failover.call("/f", this::answer, null)).isEqualTo("from b");
  }

  @Test
  void anAnswerAboutTheRequest_isTheAnswer_andNoOtherWorkerIsAsked() {
    for (StatusCode code :
        List.of(
            StatusCode.NOT_FOUND,
            StatusCode.FAILED_PRECONDITION,
            StatusCode.CANCELLED,
            StatusCode.PERMISSION_DENIED)) {
      asked.clear();
      failures.put("a", code);
      assertThatThrownBy(() -> failover.call("/f", this::answer, last -> "fallback"))
          .isInstanceOf(StrataException.class)
          .extracting(e -> ((StrataException) e).code())
          .isEqualTo(code);
      assertThat(asked).containsExactly("a#0");
    }
    assertThat(ring.invalidations).isZero();
  }

  @Test
  void aFreshViewWithoutTheFailedWorker_costsNoAttempt_theNextLiveWorkerIsAsked() {
    failures.put("a", StatusCode.UNAVAILABLE);
    // The view fetched after a's failure no longer holds a: b must not be skipped.
    ring.nextViews.add(List.of("b", "c", "d", "e"));
    assertThat(failover.call("/f", this::answer, null)).isEqualTo("from b");
    assertThat(asked).containsExactly("a#0", "b#1");
  }

  @Test
  void atMostThreeWorkersAreAsked_thenUnavailable_withTheLastFailureAsCause() {
    failures.put("a", StatusCode.UNAVAILABLE);
    failures.put("b", StatusCode.UNAVAILABLE);
    failures.put("c", StatusCode.DEADLINE_EXCEEDED);
    fallbackEnabled.set(false);
    assertThatThrownBy(() -> failover.call("/f", this::answer, last -> "fallback"))
        .isInstanceOf(StrataException.class)
        .hasMessage("no worker could serve /f (asked a, b, c): scripted DEADLINE_EXCEEDED from c")
        .satisfies(e -> assertThat(((StrataException) e).code()).isEqualTo(StatusCode.UNAVAILABLE))
        .cause()
        .hasMessage("scripted DEADLINE_EXCEEDED from c");
    assertThat(asked).containsExactly("a#0", "b#1", "c#2");
  }

  @Test
  void spentCandidates_fallBack_withTheLastFailure_whenTheKeyAllows() {
    failures.put("a", StatusCode.UNAVAILABLE);
    failures.put("b", StatusCode.UNAVAILABLE);
    failures.put("c", StatusCode.UNAVAILABLE);
    assertThat(failover.call("/f", this::answer, last -> "ufs after " + last.getMessage()))
        .isEqualTo("ufs after scripted UNAVAILABLE from c");
  }

  @Test
  void aSmallRing_isSpentWhenEveryMemberWasAsked() {
    ScriptedRing two = new ScriptedRing("a", "b");
    RingFailover small = new RingFailover(two, () -> false, executor);
    failures.put("a", StatusCode.UNAVAILABLE);
    failures.put("b", StatusCode.UNAVAILABLE);
    assertThatThrownBy(() -> small.call("/f", this::answer, null)).hasMessageContaining("from b");
    assertThat(asked).containsExactly("a#0", "b#1");
  }

  @Test
  void noViewAtAll_fallsBack_orFailsWithTheViewsOwnError() {
    ring.broken = new StrataException(StatusCode.UNAVAILABLE, "no master answers");
    assertThat(failover.call("/f", this::answer, last -> "ufs: " + last.getMessage()))
        .isEqualTo("ufs: no master answers");
    assertThatThrownBy(() -> failover.call("/f", this::answer, null))
        .hasMessage("no master answers");
    assertThat(failover.owner("/f")).isEmpty();
    assertThat(asked).isEmpty();
  }

  @Test
  void aViewLostAfterAFailure_endsWithTheWorkersFailure() {
    failures.put("a", StatusCode.UNAVAILABLE);
    ring.breakOnInvalidate = new StrataException(StatusCode.UNAVAILABLE, "no master answers");
    fallbackEnabled.set(false);
    assertThatThrownBy(() -> failover.call("/f", this::answer, null))
        .hasMessageContaining("scripted UNAVAILABLE from a");
  }

  @Test
  void async_theNextAttemptRunsOnTheFailoverExecutor_notOnTheThreadThatReportedTheFailure()
      throws Exception {
    List<String> threads = new ArrayList<>();
    CompletableFuture<String> result =
        failover.callAsync(
            "/f",
            (w, n) -> {
              synchronized (threads) {
                threads.add(w.getId() + "@" + Thread.currentThread().getName());
              }
              return w.getId().equals("a")
                  ? CompletableFuture.failedFuture(
                      new StrataException(StatusCode.UNAVAILABLE, "a is gone"))
                  : CompletableFuture.completedFuture("from " + w.getId());
            },
            null);
    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("from b");
    assertThat(threads).containsExactly("a@" + Thread.currentThread().getName(), "b@failover-test");
  }

  @Test
  void async_aRefusal_endsTheCall_andAnAttemptThatThrowsCountsAsAFailedOne() {
    CompletableFuture<String> refused =
        failover.callAsync(
            "/f",
            (w, n) ->
                CompletableFuture.failedFuture(new StrataException(StatusCode.NOT_FOUND, "no")),
            null);
    assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("no");

    CompletableFuture<String> thrown =
        failover.callAsync(
            "/f",
            (w, n) -> {
              if (n == 0) {
                throw new StrataException(StatusCode.UNAVAILABLE, "cannot connect");
              }
              return CompletableFuture.completedFuture("from " + w.getId());
            },
            null);
    assertThat(thrown.join()).isEqualTo("from b");
  }

  @Test
  void async_spentCandidates_fallBack() throws Exception {
    fallbackEnabled.set(true);
    CompletableFuture<String> result =
        failover.callAsync(
            "/f",
            (w, n) ->
                CompletableFuture.failedFuture(
                    new StrataException(StatusCode.DEADLINE_EXCEEDED, "silent " + w.getId())),
            last -> "ufs after " + last.getMessage());
    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("ufs after silent c");
  }

  /** A ring whose order is the same for every key; each invalidation may bring a scripted view. */
  private static final class ScriptedRing implements RingFailover.Ring {
    private List<String> members;
    final Deque<List<String>> nextViews = new ArrayDeque<>();
    StrataException broken;
    StrataException breakOnInvalidate;
    int invalidations;

    ScriptedRing(String... members) {
      this.members = List.of(members);
    }

    @Override
    public List<WorkerInfo> owners(String key, int count) {
      if (broken != null) {
        throw broken;
      }
      return members.stream()
          .limit(count)
          .map(id -> WorkerInfo.newBuilder().setId(id).build())
          .toList();
    }

    @Override
    public void invalidate() {
      invalidations++;
      if (!nextViews.isEmpty()) {
        members = nextViews.poll();
      }
      if (breakOnInvalidate != null) {
        broken = breakOnInvalidate;
      }
    }
  }
}
