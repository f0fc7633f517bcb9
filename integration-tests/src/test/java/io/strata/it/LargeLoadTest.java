package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.WorkerKeys;
import io.strata.master.MasterMetrics;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * 100,000 tiny files: the job hands them out in batches (never a task per file) and the master
 * holds a bounded window of them at any moment, whatever the folder's size.
 */
class LargeLoadTest {
  private static final int DIRS = 100;
  private static final int PER_DIR = 1000;
  private static final int BATCH = 500;

  @Test
  void hundredThousandTinyFiles_loadInBatches_withABoundedWindow() throws Exception {
    try (MiniCluster cluster =
        MiniCluster.builder()
            .workers(2)
            .property(WorkerKeys.PAGE_SIZE, "4KiB")
            .property(WorkerKeys.MEM_SIZE, "256MiB")
            .start()) {
      byte[] tiny = new byte[64];
      for (int d = 0; d < DIRS; d++) {
        Path dir = Files.createDirectories(cluster.ufsRoot().resolve("many/d" + d));
        for (int f = 0; f < PER_DIR; f++) {
          Files.write(dir.resolve("f" + f), tiny);
        }
      }
      AtomicLong maxOpen = new AtomicLong();
      AtomicBoolean running = new AtomicBoolean(true);
      Thread sampler =
          new Thread(
              () -> {
                while (running.get()) {
                  double open =
                      cluster
                          .master(0)
                          .registry()
                          .get(MasterMetrics.LOAD_OPEN_FILES)
                          .gauge()
                          .value();
                  maxOpen.accumulateAndGet((long) open, Math::max);
                  try {
                    Thread.sleep(20);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      sampler.start();
      ShellRunner.Run run =
          new ShellRunner(cluster::clientConf)
              .run(
                  "fs",
                  "distributedLoad",
                  "/many",
                  "--json",
                  "--batch-size",
                  String.valueOf(BATCH));
      running.set(false);
      sampler.join();
      assertThat(run.code()).as(run.out() + run.err()).isZero();
      assertThat(run.out()).contains("\"files\":" + DIRS * PER_DIR, "\"files_failed\":0");
      double tasks = 0;
      for (WorkerProcess w : cluster.workers()) {
        tasks +=
            w.registry().get("strata.rpc.server").tag("method", "LoadFiles").timers().stream()
                .mapToDouble(t -> t.count())
                .sum();
      }
      int files = DIRS * PER_DIR;
      assertThat(tasks).as("tasks handed out").isLessThanOrEqualTo(files * 1.5 / BATCH + DIRS * 2);
      assertThat(maxOpen.get())
          .as("files open at once")
          .isPositive()
          .isLessThanOrEqualTo(BATCH * 4L * 2);
    }
  }
}
