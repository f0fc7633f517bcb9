package io.strata.shell.conf;

import io.strata.core.proto.ConfigView;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata conf updateConf KEY=VALUE ...} (also {@code strata fsadmin updateConf}). */
@Command(
    name = "updateConf",
    mixinStandardHelpOptions = true,
    description =
        "Change dynamic keys on the running cluster, all together or not at all; every master, worker "
            + "and client applies them without a restart.")
public final class UpdateConfCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "KEY=VALUE", description = "Keys and their new values.")
  List<String> assignments;

  public UpdateConfCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    Map<String, String> values = new LinkedHashMap<>();
    for (String a : assignments) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw StrataException.invalidArgument(
            "expected KEY=VALUE, got '" + a + "'; nothing changed");
      }
      values.put(a.substring(0, eq).trim(), a.substring(eq + 1).trim());
    }
    ConfigView view =
        ctx.master()
            .call(
                "updateConf",
                s -> s.updateConf(UpdateConfRequest.newBuilder().putAllValues(values).build()));
    ctx.out()
        .println(
            "updated "
                + String.join(", ", values.keySet())
                + " (cluster configuration version "
                + view.getVersion()
                + ", hash "
                + view.getHash()
                + "); workers apply it with their next heartbeat, "
                + "clients within strata.user.conf.sync.interval");
  }
}
