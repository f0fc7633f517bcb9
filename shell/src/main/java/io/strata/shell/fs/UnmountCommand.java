package io.strata.shell.fs;

import io.strata.core.proto.UnmountRequest;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs unmount /PATH}. */
@Command(
    name = "unmount",
    mixinStandardHelpOptions = true,
    description =
        "Detach the mount at a Strata path; every worker drops what it cached of it. The "
            + "under-storage keeps its data.")
final class UnmountCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(paramLabel = "/PATH", description = "The mount's Strata path.")
  String path;

  UnmountCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ctx.master().call("unmount", s -> s.unmount(UnmountRequest.newBuilder().setPath(path).build()));
    ctx.out().println("unmounted " + path);
  }
}
