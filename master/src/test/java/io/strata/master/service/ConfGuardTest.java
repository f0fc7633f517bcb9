package io.strata.master.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerUsage;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's checks of an update against the live workers, on a real single-peer group. */
class ConfGuardTest {
  private static final String MEM = WorkerKeys.MEM_SIZE.name();

  @TempDir Path folder;
  private MasterJournal journal;
  private final WorkerLiveness liveness = new WorkerLiveness(System::nanoTime);
  private ConfGuard guard;

  @BeforeEach
  void start() throws IOException {
    Configuration conf = SinglePeerJournal.conf(folder);
    journal = SinglePeerJournal.start(conf);
    for (int port : new int[] {1, 2}) {
      WorkerAddress a = WorkerAddress.newBuilder().setHost("w").setRpcPort(port).build();
      journal.submit(new MasterCommand.RegisterWorker(a, port)).orThrow();
    }
    guard = new ConfGuard(journal, liveness, conf);
  }

  @AfterEach
  void stop() throws IOException {
    journal.close();
  }

  private void reports(String worker, long maxDirectMemory) {
    WorkerUsage usage = WorkerUsage.newBuilder().setMaxDirectMemoryBytes(maxDirectMemory).build();
    liveness.beat(worker, usage, "", -1, -1);
  }

  @Test
  void aMemoryTier_isHeldBack_untilEveryLiveWorkerHasReportedItsDirectMemory() {
    liveness.startGracePeriod(List.of("w:1", "w:2"));
    reports("w:1", 4L << 30);
    StrataException held =
        catchThrowableOfType(StrataException.class, () -> guard.check(Map.of(MEM, "1GiB")));
    assertThat(held.code()).isEqualTo(StatusCode.UNAVAILABLE);
    assertThat(held).hasMessageContaining("nothing changed").hasMessageContaining("of w:2 until");
    reports("w:2", 4L << 30);
    assertThatCode(() -> guard.check(Map.of(MEM, "1GiB"))).doesNotThrowAnyException();
  }

  @Test
  void aMemoryTierTooLargeForOneWorker_isRefusedNamingIt_evenWhileAnotherIsUnheard() {
    liveness.startGracePeriod(List.of("w:1", "w:2"));
    reports("w:1", 512L << 20);
    StrataException refused =
        catchThrowableOfType(StrataException.class, () -> guard.check(Map.of(MEM, "1GiB")));
    assertThat(refused.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(refused).hasMessageContaining("worker w:1: " + MEM + " (1024 MiB) does not fit");
  }

  @Test
  void otherKeys_doNotWaitForReports() {
    liveness.startGracePeriod(List.of("w:1", "w:2"));
    assertThatCode(() -> guard.check(Map.of(WorkerKeys.METADATA_TTL.name(), "5s")))
        .doesNotThrowAnyException();
  }
}
