package io.strata.shell.fs;

import io.strata.core.conf.ConfType;
import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.LoadOptions;
import io.strata.core.proto.LoadState;
import io.strata.core.proto.StopLoadRequest;
import io.strata.core.proto.SubmitLoadRequest;
import io.strata.shell.ShellContext;
import io.strata.shell.ShellErrors;
import io.strata.shell.job.LoadFollower;
import io.strata.shell.job.LoadReport;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs distributedLoad}. */
@Command(
    name = "distributedLoad",
    mixinStandardHelpOptions = true,
    description = {
      "Warm a folder into the workers' caches, as a job of the master group that survives the loss of "
          + "any process.",
      "Without --submit, waits and shows its progress; the exit code is 0 only if every file "
          + "was loaded."
    })
final class DistributedLoadCommand implements Callable<Integer> {
  private final ShellContext ctx;

  @Parameters(paramLabel = "PATH", description = "The Strata folder to load.")
  String path;

  @Option(
      names = "--replication",
      defaultValue = "1",
      description = "Copies: the owner and the next N-1 workers.")
  int replication;

  @Option(
      names = "--batch-size",
      defaultValue = "100",
      description = "Files per task handed to a worker.")
  int batchSize;

  @Option(
      names = "--bandwidth",
      paramLabel = "RATE",
      description = "Most bytes per second for the job, e.g. 200MiB.")
  String bandwidth;

  @Option(names = "--verify", description = "Workers read back what they loaded and check it.")
  boolean verify;

  @Option(
      names = "--allow-partial",
      description =
          "Succeed (exit 0) when the only files that failed are ones the caches had no room for; "
              + "they are still reported.")
  boolean allowPartial;

  @Option(names = "--force", description = "Load pages again even if cached.")
  boolean force;

  @ArgGroup(exclusive = true)
  Mode mode;

  @Option(names = "--json", description = "Print the final report as one JSON object.")
  boolean json;

  /** What to do instead of submitting and waiting. */
  static final class Mode {
    @Option(names = "--submit", description = "Submit and print the job id at once.")
    boolean submit;

    @Option(names = "--progress", description = "Follow the latest job for PATH.")
    boolean progress;

    @Option(names = "--stop", description = "Stop the running job for PATH.")
    boolean stop;
  }

  DistributedLoadCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    LoadJob job;
    if (mode != null && mode.stop) {
      job =
          ctx.master()
              .call(
                  "stopLoad", s -> s.stopLoad(StopLoadRequest.newBuilder().setPath(path).build()));
      return report(job);
    }
    if (mode != null && mode.progress) {
      job =
          ctx.master()
              .call("getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setPath(path).build()));
    } else {
      LoadOptions options =
          LoadOptions.newBuilder()
              .setReplication(replication)
              .setBatchSize(batchSize)
              .setBandwidthBytes(bandwidth == null ? 0 : ConfType.BYTES.parse(bandwidth))
              .setVerify(verify)
              .setForce(force)
              .setAllowPartial(allowPartial)
              .build();
      job =
          ctx.master()
              .call(
                  "submitLoad",
                  s ->
                      s.submitLoad(
                          SubmitLoadRequest.newBuilder()
                              .setPath(path)
                              .setOptions(options)
                              .build()));
      if (mode != null && mode.submit) {
        ctx.out()
            .println(
                json
                    ? "{\"id\":" + job.getId() + ",\"path\":\"" + job.getPath() + "\"}"
                    : "submitted load job " + job.getId() + " for " + job.getPath());
        return 0;
      }
    }
    if (!LoadReport.finished(job) && !json) {
      job = LoadFollower.follow(ctx.master(), job, ctx.out(), LoadFollower.onTerminal());
    } else {
      while (!LoadReport.finished(job)) {
        Thread.sleep(500);
        long id = job.getId();
        job =
            ctx.master()
                .call("getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setId(id).build()));
      }
    }
    return report(job);
  }

  private int report(LoadJob job) {
    if (json) {
      ctx.out().println(LoadReport.json(job));
    } else {
      LoadReport.print(job, ctx.out());
    }
    return job.getState() == LoadState.LOAD_SUCCEEDED ? 0 : ShellErrors.EXIT_FAILURE;
  }
}
