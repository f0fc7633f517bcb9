package io.strata.bench.load;

import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadOptions;
import io.strata.core.proto.LoadState;
import io.strata.core.proto.SubmitLoadRequest;
import io.strata.core.rpc.MasterClient;

/** A distributedLoad as the benches run it: submitted, then polled until it ends. */
public final class Loads {
  /**
   * As often as {@code fs distributedLoad} asks. The job's time is the master's own (submitted to
   * finished), so asking more often only takes CPU from the job being measured.
   */
  private static final long POLL_MS = 500;

  private Loads() {}

  /**
   * Loads {@code path} in batches of {@code batchSize} files (0: the default); the finished job.
   */
  public static LoadJob run(MasterClient master, String path, int batchSize)
      throws InterruptedException {
    LoadJob job =
        master.call(
            "submitLoad",
            s ->
                s.submitLoad(
                    SubmitLoadRequest.newBuilder()
                        .setPath(path)
                        .setOptions(LoadOptions.newBuilder().setBatchSize(batchSize))
                        .build()));
    while (job.getState() == LoadState.LOAD_RUNNING) {
      Thread.sleep(POLL_MS);
      long id = job.getId();
      job = master.call("getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setId(id).build()));
    }
    if (job.getState() != LoadState.LOAD_SUCCEEDED) {
      throw new IllegalStateException(
          "the load of " + path + " did not succeed: " + job.getMessage());
    }
    return job;
  }

  /** Seconds the job ran, by the master's clock. */
  public static double seconds(LoadJob job) {
    return (job.getFinishedMs() - job.getSubmittedMs()) / 1000.0;
  }
}
