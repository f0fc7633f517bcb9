package io.strata.master.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.load.LoadDispatcher.Batch;
import io.strata.master.load.LoadDispatcher.Next;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Scenarios fed to a load job's dispatcher: files, answers and time in, batches and decisions out,
 * with no threads, network or journal.
 */
class LoadDispatcherTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /** Workers w0..wn; a path's owner is chosen by its number, the next ones follow in order. */
  private static final class Ring implements LoadDispatcher.Ring {
    final List<String> live = new ArrayList<>();

    Ring(int workers) {
      for (int i = 0; i < workers; i++) {
        live.add("w" + i);
      }
    }

    @Override
    public List<String> ownerIds(String path, int count) {
      if (live.isEmpty()) {
        return List.of();
      }
      int start = Math.floorMod(Integer.parseInt(path.replaceAll("\\D", "")), live.size());
      List<String> out = new ArrayList<>();
      for (int i = 0; i < Math.min(count, live.size()); i++) {
        out.add(live.get((start + i) % live.size()));
      }
      return out;
    }

    @Override
    public boolean isLive(String workerId) {
      return live.contains(workerId);
    }

    @Override
    public Set<String> memberIds() {
      return new LinkedHashSet<>(live);
    }
  }

  private final Ring ring = new Ring(2);
  private long now = 1_000 * MS;

  private LoadDispatcher dispatcher(int batchSize, int replication) {
    return new LoadDispatcher(
        ring, batchSize, replication, LoadCounters.getDefaultInstance(), "", now);
  }

  private static FileStatus file(int n) {
    return FileStatus.newBuilder().setPath("/d/f" + n).setName("f" + n).setLength(100).build();
  }

  /** Walks files 0..n-1 as far as the dispatcher wants them; returns how many it took. */
  private static int walk(LoadDispatcher d, int n, int[] next) {
    int taken = 0;
    while (d.wantsFiles()) {
      if (next[0] < n) {
        d.admit(file(next[0]++));
        taken++;
      } else {
        d.walkDone();
      }
    }
    return taken;
  }

  private static LoadFilesResponse ok(Batch b) {
    LoadFilesResponse.Builder r = LoadFilesResponse.newBuilder();
    b.files()
        .forEach(
            f ->
                r.addResults(
                    LoadFileResult.newBuilder()
                        .setPath(f.getPath())
                        .setOk(true)
                        .setBytesLoaded(f.getLength())));
    return r.build();
  }

  private static LoadFilesResponse failing(Batch b, String path) {
    LoadFilesResponse.Builder r = LoadFilesResponse.newBuilder();
    for (FileStatus f : b.files()) {
      boolean bad = f.getPath().equals(path);
      r.addResults(
          LoadFileResult.newBuilder()
              .setPath(f.getPath())
              .setOk(!bad)
              .setError(bad ? "disk full" : "")
              .setBytesLoaded(bad ? 0 : f.getLength()));
    }
    return r.build();
  }

  @Test
  void aSmallJob_isBatchedPerOwner_atMostTwoBatchesInFlightPerWorker_thenDone() {
    LoadDispatcher d = dispatcher(2, 1);
    int[] next = {0};
    assertThat(walk(d, 12, next)).isEqualTo(12);
    List<Batch> first = d.dispatch(now);
    // Six files per worker, batches of two, two in flight each.
    assertThat(first).hasSize(4);
    assertThat(first).extracting(Batch::worker).containsExactly("w0", "w0", "w1", "w1");
    assertThat(d.dispatch(now)).as("nothing more while two are in flight").isEmpty();
    assertThat(d.next()).isEqualTo(Next.WAIT);
    d.answered(first.get(0).id(), ok(first.get(0)), now);
    List<Batch> more = d.dispatch(now);
    assertThat(more).hasSize(1);
    assertThat(more.get(0).worker()).isEqualTo("w0");
    List<Batch> all = new ArrayList<>(first.subList(1, 4));
    all.addAll(more);
    while (!all.isEmpty()) {
      Batch b = all.remove(0);
      d.answered(b.id(), ok(b), now);
      all.addAll(d.dispatch(now));
    }
    assertThat(d.next()).isEqualTo(Next.DONE);
    assertThat(d.live().getFiles()).isEqualTo(12);
    assertThat(d.live().getFilesListed()).isEqualTo(12);
    assertThat(d.live().getBytesLoaded()).isEqualTo(1200);
    assertThat(d.live().getListingDone()).isTrue();
    assertThat(d.progress().cursor()).isEqualTo("/d/f11");
  }

  @Test
  void theWindow_boundsOpenFiles_andPartialBatchesWaitUntilItIsFull() {
    LoadDispatcher d = dispatcher(100, 1);
    assertThat(d.window()).isEqualTo(LoadDispatcher.MIN_OPEN);
    int[] next = {0};
    for (int i = 0; i < 150; i++) {
      d.admit(file(next[0]++));
    }
    // 75 files for each worker: not a full batch, and more files may come.
    assertThat(d.dispatch(now)).isEmpty();
    assertThat(walk(d, 100_000, next)).isEqualTo(LoadDispatcher.MIN_OPEN - 150);
    assertThat(d.wantsFiles()).isFalse();
    assertThat(d.openFiles()).isEqualTo(LoadDispatcher.MIN_OPEN);
    assertThat(d.dispatch(now))
        .as("a full window flushes: two batches per worker")
        .hasSize(4)
        .allSatisfy(b -> assertThat(b.files()).hasSize(100));
  }

  @Test
  void aFullBatchForAnIdleWorker_isReadyAtOnce_soLoadingOverlapsTheWalk() {
    LoadDispatcher d = dispatcher(3, 1);
    int[] next = {0};
    while (!d.batchReady()) {
      d.admit(file(next[0]++));
    }
    // f0, f2, f4 are w0's: its batch is full after five files, long before the window is.
    assertThat(next[0]).isEqualTo(5);
    List<Batch> first = d.dispatch(now);
    assertThat(first).hasSize(1);
    assertThat(first.get(0).files())
        .extracting(FileStatus::getPath)
        .containsExactly("/d/f0", "/d/f2", "/d/f4");
    assertThat(d.batchReady()).isFalse();
    for (int i = 0; i < 6; i++) {
      d.admit(file(next[0]++));
    }
    assertThat(d.batchReady()).isTrue();
    assertThat(d.dispatch(now)).hasSize(2);
    // Both of w0's batches are in flight: its next full batch waits for an answer.
    for (int i = 0; i < 6; i++) {
      d.admit(file(next[0]++));
    }
    assertThat(d.dispatch(now)).extracting(Batch::worker).containsExactly("w1");
    d.admit(file(next[0]++));
    d.admit(file(next[0]++));
    assertThat(d.batchReady()).as("w0 is busy, w1's queue holds one").isFalse();
    // w0 has a full batch queued: the answer that frees its slot makes it ready without waiting
    // for the walk's next file (or listing).
    Batch done = first.get(0);
    d.answered(done.id(), ok(done), now);
    assertThat(d.batchReady()).isTrue();
    assertThat(d.dispatch(now)).extracting(Batch::worker).containsExactly("w0");
  }

  @Test
  void theWindow_growsWithTheWorkers_upToItsBound() {
    ring.live.clear();
    for (int i = 0; i < 40; i++) {
      ring.live.add("w" + i);
    }
    assertThat(dispatcher(100, 1).window()).isEqualTo(16_000);
    assertThat(dispatcher(1000, 1).window()).isEqualTo(LoadDispatcher.MAX_OPEN);
  }

  @Test
  void aFailedFile_isRetriedWithBackoff_thenCountedFailed_andTheCursorStaysBehindIt() {
    LoadDispatcher d = dispatcher(10, 1);
    d.admit(file(0)); // owner w0
    d.admit(file(2)); // owner w0
    d.walkDone();
    Batch b = d.dispatch(now).get(0);
    d.answered(b.id(), failing(b, "/d/f0"), now);
    assertThat(d.progress().cursor()).as("f2 is done, f0 before it is not").isEmpty();
    assertThat(d.dispatch(now + 199 * MS)).as("not before 200 ms").isEmpty();
    assertThat(d.nextWakeNanos()).isEqualTo(now + 200 * MS);
    Batch retry = d.dispatch(now + 200 * MS).get(0);
    assertThat(retry.files()).extracting(FileStatus::getPath).containsExactly("/d/f0");
    d.answered(retry.id(), failing(retry, "/d/f0"), now + 200 * MS);
    assertThat(d.dispatch(now + 599 * MS)).as("then 400 ms").isEmpty();
    Batch last = d.dispatch(now + 600 * MS).get(0);
    d.answered(last.id(), failing(last, "/d/f0"), now + 600 * MS);
    assertThat(d.dispatch(now + 10_000 * MS)).as("three attempts in all").isEmpty();
    assertThat(d.next()).isEqualTo(Next.DONE);
    assertThat(d.live().getFilesFailed()).isEqualTo(1);
    assertThat(d.progress().cursor()).isEqualTo("/d/f2");
    assertThat(d.progress().takeNewFailures())
        .singleElement()
        .satisfies(f -> assertThat(f.getReason()).isEqualTo("disk full"));
  }

  @Test
  void aWorkerThatFails_hasItsFilesMovedToTheNext_andTheJobWalksAgain() {
    LoadDispatcher d = dispatcher(10, 1);
    for (int i = 0; i < 4; i++) {
      d.admit(file(i));
    }
    d.walkDone();
    List<Batch> sent = d.dispatch(now);
    Batch toW0 = sent.stream().filter(b -> b.worker().equals("w0")).findFirst().orElseThrow();
    Batch toW1 = sent.stream().filter(b -> b.worker().equals("w1")).findFirst().orElseThrow();
    d.failed(toW0.id(), "connection refused", now);
    List<Batch> moved = d.dispatch(now);
    assertThat(moved).singleElement().satisfies(b -> assertThat(b.worker()).isEqualTo("w1"));
    assertThat(moved.get(0).files()).isEqualTo(toW0.files());
    d.answered(toW1.id(), ok(toW1), now);
    d.answered(moved.get(0).id(), ok(moved.get(0)), now);
    assertThat(d.next()).as("w0 may have lost pages it loaded").isEqualTo(Next.WALK_AGAIN);

    d.repairStarted();
    assertThat(d.wantsFiles()).isTrue();
    for (int i = 0; i < 4; i++) {
      d.admit(file(i));
    }
    d.walkDone();
    for (Batch b : d.dispatch(now)) {
      d.answered(b.id(), ok(b), now);
    }
    assertThat(d.next()).isEqualTo(Next.DONE);
    assertThat(d.live().getFiles()).as("the repair walk counts no files").isEqualTo(4);
    assertThat(d.repairLoaded()).isEqualTo(400);
  }

  @Test
  void aWorkerThatLeft_getsNoBatch_itsCopiesGoToTheNextWorker() {
    LoadDispatcher d = dispatcher(10, 1);
    d.admit(file(0)); // owner w0
    d.walkDone();
    ring.live.remove("w0");
    List<Batch> sent = d.dispatch(now);
    assertThat(sent).isEmpty();
    Batch b = d.dispatch(now).get(0);
    assertThat(b.worker()).isEqualTo("w1");
    d.answered(b.id(), ok(b), now);
    assertThat(d.next()).isEqualTo(Next.WALK_AGAIN);
  }

  @Test
  void replication_placesCopiesOnDistinctWorkers_andAFileIsDoneWhenAllAre() {
    ring.live.add("w2");
    LoadDispatcher d = dispatcher(10, 2);
    d.admit(file(1));
    d.walkDone();
    List<Batch> sent = d.dispatch(now);
    assertThat(sent).extracting(Batch::worker).containsExactlyInAnyOrder("w1", "w2");
    d.answered(sent.get(0).id(), ok(sent.get(0)), now);
    assertThat(d.next()).isEqualTo(Next.WAIT);
    d.failed(sent.get(1).id(), "gone", now);
    Batch moved = d.dispatch(now).get(0);
    assertThat(moved.worker()).as("never beside the other copy").isEqualTo("w0");
    d.answered(moved.id(), ok(moved), now);
    assertThat(d.live().getBytes()).isEqualTo(200);
    assertThat(d.live().getFiles()).isEqualTo(1);
  }

  @Test
  void aFileNoWorkerCanTake_failsAfterItsMoves() {
    LoadDispatcher d = dispatcher(10, 1);
    d.admit(file(0));
    d.walkDone();
    long t = now;
    for (int moves = 0; moves <= LoadDispatcher.MAX_MOVES; moves++) {
      List<Batch> sent = d.dispatch(t);
      assertThat(sent).hasSize(1);
      d.failed(sent.get(0).id(), "refused", t);
      t += 10 * MS;
    }
    assertThat(d.dispatch(t)).isEmpty();
    assertThat(d.live().getFilesFailed()).isEqualTo(1);
    assertThat(d.progress().takeNewFailures().get(0).getReason())
        .startsWith("no worker could load it");
  }

  @Test
  void checkpoints_areDueEverySecond() {
    LoadDispatcher d = dispatcher(10, 1);
    assertThat(d.checkpointDue(now + 1000 * MS)).isFalse();
    assertThat(d.checkpointDue(now + 1001 * MS)).isTrue();
    assertThat(d.nextWakeNanos()).isEqualTo(now + 1000 * MS);
    d.checkpointed(now + 1001 * MS);
    assertThat(d.checkpointDue(now + 1500 * MS)).isFalse();
  }

  @Test
  void aResumedJob_countsFromItsCheckpoint() {
    LoadCounters before =
        LoadCounters.newBuilder().setFiles(7).setBytes(700).setBytesLoaded(700).build();
    LoadDispatcher d = new LoadDispatcher(ring, 10, 1, before, "/d/f6", now);
    assertThat(d.progress().cursor()).isEqualTo("/d/f6");
    d.admit(file(7));
    d.walkDone();
    Batch b = d.dispatch(now).get(0);
    d.answered(b.id(), ok(b), now);
    assertThat(d.live().getFiles()).isEqualTo(8);
    assertThat(d.live().getFilesListed()).isEqualTo(8);
    assertThat(d.progress().cursor()).isEqualTo("/d/f7");
  }

  @Test
  void aStoppedJob_sendsNothingMore() {
    LoadDispatcher d = dispatcher(1, 1);
    d.admit(file(0));
    d.admit(file(1));
    d.stop();
    assertThat(d.dispatch(now)).isEmpty();
    assertThat(d.wantsFiles()).isFalse();
    assertThat(d.next()).isEqualTo(Next.STOPPED);
  }

  @Test
  void noLiveWorker_failsTheJob_andAnUnknownAnswerIsABug() {
    LoadDispatcher d = dispatcher(1, 1);
    ring.live.clear();
    assertThatThrownBy(() -> d.admit(file(0)))
        .isInstanceOf(StrataException.class)
        .satisfies(e -> assertThat(((StrataException) e).code()).isEqualTo(StatusCode.UNAVAILABLE));
    assertThatThrownBy(() -> d.failed(42, "?", now)).isInstanceOf(IllegalArgumentException.class);
  }
}
