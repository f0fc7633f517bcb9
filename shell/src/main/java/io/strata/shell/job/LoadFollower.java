package io.strata.shell.job;

import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadJob;
import io.strata.core.rpc.MasterClient;
import java.io.PrintStream;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * Watches a load job until it ends, with a live progress bar (bytes, throughput, ETA once the walk
 * of the folder is complete, files done and failed). Returns the finished job.
 */
public final class LoadFollower {
  private static final long POLL_MS = 500;
  private static final int WIDTH = 110;

  private LoadFollower() {}

  public static LoadJob follow(MasterClient master, LoadJob job, PrintStream out)
      throws InterruptedException {
    ProgressBar bar =
        new ProgressBarBuilder()
            .setTaskName("load " + job.getId())
            .setConsumer(
                new DelegatingProgressBarConsumer(
                    line -> {
                      out.print("\r" + line);
                      out.flush();
                    },
                    WIDTH))
            .setUnit(" MiB", 1 << 20)
            .showSpeed()
            .setInitialMax(-1)
            .setUpdateIntervalMillis((int) POLL_MS)
            .build();
    try {
      LoadJob current = job;
      while (!LoadReport.finished(current)) {
        Thread.sleep(POLL_MS);
        current =
            master.call(
                "getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setId(job.getId()).build()));
        LoadCounters c = current.getCounters();
        bar.maxHint(c.getListingDone() ? c.getBytesListed() : -1);
        bar.stepTo(c.getBytes());
        bar.setExtraMessage(
            String.format(
                " files %d/%d%s, %d failed",
                c.getFiles(),
                c.getFilesListed(),
                c.getListingDone() ? "" : "+",
                c.getFilesFailed()));
      }
      bar.stepTo(current.getCounters().getBytes());
      return current;
    } finally {
      bar.close();
      out.println();
    }
  }
}
