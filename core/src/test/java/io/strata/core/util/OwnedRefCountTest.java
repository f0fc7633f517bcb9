package io.strata.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OwnedRefCountTest {
  private final AtomicInteger freed = new AtomicInteger();
  private final OwnedRefCount count = new OwnedRefCount(freed::incrementAndGet);

  @Test
  void freedWhenTheOwnerAndTheLastUserAreGone_once() {
    assertThat(count.acquire()).isTrue();
    count.releaseOwner();
    count.releaseOwner();
    assertThat(freed).as("a user is still in").hasValue(0);
    assertThat(count.acquire()).as("the owner let go, but it is not freed yet").isTrue();
    count.release();
    count.release();
    assertThat(freed).hasValue(1);
    assertThat(count.acquire()).as("freed").isFalse();
  }

  @Test
  void usersRacingTheOwner_neverFindItFreed_andItIsFreedOnce() throws Exception {
    List<Thread> users = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger sawFreed = new AtomicInteger();
    for (int t = 0; t < 4; t++) {
      users.add(
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < 10_000 && count.acquire(); i++) {
                  if (freed.get() != 0) {
                    sawFreed.incrementAndGet();
                  }
                  count.release();
                }
              }));
    }
    users.forEach(Thread::start);
    go.countDown();
    count.releaseOwner();
    for (Thread u : users) {
      u.join();
    }
    assertThat(sawFreed).hasValue(0);
    assertThat(freed).hasValue(1);
  }
}
