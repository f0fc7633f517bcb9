package io.strata.shell.admin;

import io.strata.core.net.HostPort;
import io.strata.core.proto.DecommissionWorkerRequest;
import io.strata.core.proto.RecommissionWorkerRequest;
import io.strata.core.proto.RemoveWorkerRequest;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * A worker's place in the cluster, changed without touching its process: out of the ring, back in,
 * or forgotten once it is gone.
 */
final class WorkerStateCommand {
  private WorkerStateCommand() {}

  /** A command about one worker, named as fsadmin report lists it. */
  abstract static class OneWorker implements Runnable {
    final ShellContext ctx;

    @Parameters(
        index = "0",
        paramLabel = "HOST:PORT",
        description = "The worker, as fsadmin report lists it.")
    String worker;

    OneWorker(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      HostPort.parse(worker, "worker");
      ctx.out().println(change());
    }

    /** Makes the change on the master; what to print. */
    abstract String change();
  }

  @Command(
      name = "decommissionWorker",
      mixinStandardHelpOptions = true,
      description =
          "Take a worker out of every client's ring (it keeps running; its cache is no longer read).")
  static final class Decommission extends OneWorker {
    Decommission(ShellContext ctx) {
      super(ctx);
    }

    @Override
    String change() {
      ctx.master()
          .call(
              "decommissionWorker",
              s ->
                  s.decommissionWorker(
                      DecommissionWorkerRequest.newBuilder().setWorkerId(worker).build()));
      return "decommissioned "
          + worker
          + "; clients drop it from their ring within "
          + "strata.user.cluster.view.refresh.interval";
    }
  }

  @Command(
      name = "removeWorker",
      mixinStandardHelpOptions = true,
      description =
          "Forget a worker that is gone (LOST, or decommissioned with its process stopped), for"
              + " good: it leaves fsadmin report and every client's view.")
  static final class Remove extends OneWorker {
    Remove(ShellContext ctx) {
      super(ctx);
    }

    @Override
    String change() {
      ctx.master()
          .call(
              "removeWorker",
              s -> s.removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId(worker).build()));
      return "removed " + worker + " from the cluster";
    }
  }

  @Command(
      name = "recommissionWorker",
      mixinStandardHelpOptions = true,
      description = "Bring a decommissioned worker back into the ring.")
  static final class Recommission extends OneWorker {
    Recommission(ShellContext ctx) {
      super(ctx);
    }

    @Override
    String change() {
      ctx.master()
          .call(
              "recommissionWorker",
              s ->
                  s.recommissionWorker(
                      RecommissionWorkerRequest.newBuilder().setWorkerId(worker).build()));
      return "recommissioned " + worker;
    }
  }
}
