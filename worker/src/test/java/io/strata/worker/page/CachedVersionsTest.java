package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.worker.kv.MemoryKvStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CachedVersionsTest {
  @Test
  void versionsUnderAUri_areFoundAndForgotten_notThoseOfASiblingWithTheSamePrefix() {
    CachedVersions v = new CachedVersions(new MemoryKvStore(), () -> 1);
    v.note("s3://b/data/x", "fp1", 10);
    v.note("s3://b/data/x", "fp2", 20);
    v.note("s3://b/data/sub/y", "fp3", 30);
    v.note("s3://b/database/z", "fp4", 40);
    v.note("s3://b/data/x", "fp1", 10);
    assertThat(v.under("s3://b/data"))
        .extracting(CachedVersions.Version::fingerprint)
        .containsExactlyInAnyOrder("fp1", "fp2", "fp3");
    assertThat(v.under("s3://b/data/x")).hasSize(2);
    v.forget(v.under("s3://b/data"));
    assertThat(v.under("s3://b/data")).isEmpty();
    assertThat(v.under("s3://b/database")).hasSize(1);
    v.note("s3://b/data/x", "fp1", 10);
    assertThat(v.under("s3://b/data")).as("noted again after being forgotten").hasSize(1);
  }

  @Test
  void aVersionKeepsWhenItWasFirstCached_acrossARestart_andEachProcessHearsOfItOnce() {
    MemoryKvStore kv = new MemoryKvStore();
    long[] now = {1000};
    CachedVersions first = new CachedVersions(kv, () -> now[0]);
    List<CachedVersions.Version> heard = new ArrayList<>();
    first.listen(heard::add);
    first.note("file:/u/a", "fp", 5);
    now[0] = 2000;
    first.note("file:/u/a", "fp", 5);
    assertThat(heard).containsExactly(new CachedVersions.Version("file:/u/a", "fp", 5, 1000));

    CachedVersions restarted = new CachedVersions(kv, () -> now[0]);
    restarted.listen(heard::add);
    restarted.note("file:/u/a", "fp", 5);
    assertThat(heard)
        .hasSize(2)
        .last()
        .extracting(CachedVersions.Version::notedAtMs)
        .isEqualTo(1000L);
    assertThat(restarted.under("file:/u"))
        .extracting(CachedVersions.Version::notedAtMs)
        .containsExactly(1000L);
  }

  @Test
  void concurrentFirstNotesOfOneVersion_areHeardOnce() throws Exception {
    CachedVersions v = new CachedVersions(new MemoryKvStore(), System::currentTimeMillis);
    java.util.concurrent.atomic.AtomicInteger heard =
        new java.util.concurrent.atomic.AtomicInteger();
    v.listen(x -> heard.incrementAndGet());
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 200; round++) {
        String uri = "file:/u/" + round;
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<?>> notes = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          notes.add(
              pool.submit(
                  () -> {
                    go.await();
                    v.note(uri, "fp", 1);
                    return null;
                  }));
        }
        go.countDown();
        for (java.util.concurrent.Future<?> f : notes) {
          f.get();
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(heard.get()).isEqualTo(200);
  }
}
