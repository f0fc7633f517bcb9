package io.strata.shell.conf;

import io.strata.core.proto.ConfigView;
import io.strata.core.proto.UnsetConfRequest;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata conf unset KEY ...}. */
@Command(
    name = "unset",
    mixinStandardHelpOptions = true,
    description =
        "Remove cluster overrides: each process goes back to its own configuration for these keys.")
final class UnsetConfCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "KEY", description = "Keys to unset.")
  List<String> keys;

  UnsetConfCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ConfigView view =
        ctx.master()
            .call(
                "unsetConf",
                s -> s.unsetConf(UnsetConfRequest.newBuilder().addAllKeys(keys).build()));
    ctx.out()
        .println(
            "unset "
                + String.join(", ", keys)
                + " (cluster configuration version "
                + view.getVersion()
                + ")");
  }
}
