package io.strata.shell.job;

import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.ListLoadsRequest;
import io.strata.core.proto.LoadJob;
import io.strata.core.proto.StopLoadRequest;
import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata job}: the master group's jobs (distributedLoad). */
@Command(
    name = "job",
    mixinStandardHelpOptions = true,
    description = "List, inspect and stop jobs of the master group.")
public final class JobCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .leaf(ListJobs.class, () -> new ListJobs(ctx))
        .leaf(JobStatus.class, () -> new JobStatus(ctx))
        .leaf(StopJob.class, () -> new StopJob(ctx))
        .build(new JobCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Running jobs and the latest finished ones.")
  static final class ListJobs implements Runnable {
    private final ShellContext ctx;

    ListJobs(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      List<LoadJob> jobs =
          ctx.master()
              .call("listLoads", s -> s.listLoads(ListLoadsRequest.getDefaultInstance()))
              .getJobsList();
      if (jobs.isEmpty()) {
        ctx.out().println("no jobs");
        return;
      }
      ctx.out().println(LoadReport.header());
      jobs.forEach(j -> ctx.out().println(LoadReport.row(j)));
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "A job's progress or final report.")
  static final class JobStatus implements Runnable {
    private final ShellContext ctx;

    @Parameters(paramLabel = "ID", description = "The job id (see 'strata job list').")
    long id;

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    JobStatus(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      LoadJob job =
          ctx.master()
              .call("getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setId(id).build()));
      if (json) {
        ctx.out().println(LoadReport.json(job));
      } else {
        LoadReport.print(job, ctx.out());
      }
    }
  }

  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      description = "Stop a running job; what it did stays done.")
  static final class StopJob implements Runnable {
    private final ShellContext ctx;

    @Parameters(paramLabel = "ID", description = "The job id.")
    long id;

    StopJob(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      LoadJob job =
          ctx.master()
              .call("stopLoad", s -> s.stopLoad(StopLoadRequest.newBuilder().setId(id).build()));
      LoadReport.print(job, ctx.out());
    }
  }
}
