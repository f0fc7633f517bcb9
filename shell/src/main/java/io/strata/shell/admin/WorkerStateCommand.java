package io.strata.shell.admin;

import io.strata.core.net.HostPort;
import io.strata.core.proto.DecommissionWorkerRequest;
import io.strata.core.proto.RecommissionWorkerRequest;
import io.strata.core.proto.RemoveWorkerRequest;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Taking a worker out of the ring for new reads, and back in, without touching its process. */
final class WorkerStateCommand {
  private WorkerStateCommand() {}

  @Command(
      name = "decommissionWorker",
      mixinStandardHelpOptions = true,
      description =
          "Take a worker out of every client's ring (it keeps running; its cache is no longer read).")
  static final class Decommission implements Runnable {
    private final ShellContext ctx;

    @Parameters(
        index = "0",
        paramLabel = "HOST:PORT",
        description = "The worker, as fsadmin report lists it.")
    String worker;

    Decommission(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      HostPort.parse(worker, "worker");
      ctx.master()
          .call(
              "decommissionWorker",
              s ->
                  s.decommissionWorker(
                      DecommissionWorkerRequest.newBuilder().setWorkerId(worker).build()));
      ctx.out()
          .println(
              "decommissioned "
                  + worker
                  + "; clients drop it from their ring within "
                  + "strata.user.cluster.view.refresh.interval");
    }
  }

  @Command(
      name = "removeWorker",
      mixinStandardHelpOptions = true,
      description =
          "Forget a worker that is gone (LOST, or decommissioned with its process stopped), for"
              + " good: it leaves fsadmin report and every client's view.")
  static final class Remove implements Runnable {
    private final ShellContext ctx;

    @Parameters(
        index = "0",
        paramLabel = "HOST:PORT",
        description = "The worker, as fsadmin report lists it.")
    String worker;

    Remove(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      HostPort.parse(worker, "worker");
      ctx.master()
          .call(
              "removeWorker",
              s -> s.removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId(worker).build()));
      ctx.out().println("removed " + worker + " from the cluster");
    }
  }

  @Command(
      name = "recommissionWorker",
      mixinStandardHelpOptions = true,
      description = "Bring a decommissioned worker back into the ring.")
  static final class Recommission implements Runnable {
    private final ShellContext ctx;

    @Parameters(
        index = "0",
        paramLabel = "HOST:PORT",
        description = "The worker, as fsadmin report lists it.")
    String worker;

    Recommission(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      HostPort.parse(worker, "worker");
      ctx.master()
          .call(
              "recommissionWorker",
              s ->
                  s.recommissionWorker(
                      RecommissionWorkerRequest.newBuilder().setWorkerId(worker).build()));
      ctx.out().println("recommissioned " + worker);
    }
  }
}
