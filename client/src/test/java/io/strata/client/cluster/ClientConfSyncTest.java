package io.strata.client.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ClientConfSyncTest {
  /** The sync threads alive now (another test's may still be ending). */
  private static java.util.Set<Thread> syncThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("client-conf-sync"))
        .collect(java.util.stream.Collectors.toSet());
  }

  private static boolean syncThreadRuns() {
    return !syncThreads().isEmpty();
  }

  @Test
  void anIntervalOfZero_startsNoThread() {
    Configuration conf = new Configuration();
    conf.set(UserKeys.CONF_SYNC_INTERVAL, "0s");
    java.util.Set<Thread> before = syncThreads();
    try (ClientConfSync sync = new ClientConfSync(conf, null)) {
      sync.start(
          () -> {
            throw new AssertionError("no periodic refresh with an interval of 0");
          });
      assertThat(syncThreads()).as("threads this sync started").isSubsetOf(before);
    }
  }

  @Test
  void aPositiveInterval_refreshesPeriodically() throws InterruptedException {
    Configuration conf = new Configuration();
    conf.set(UserKeys.CONF_SYNC_INTERVAL, "10ms");
    CountDownLatch refreshes = new CountDownLatch(3);
    try (ClientConfSync sync = new ClientConfSync(conf, null)) {
      sync.start(refreshes::countDown);
      assertThat(refreshes.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(syncThreadRuns()).isTrue();
    }
  }
}
