package io.strata.shell.conf;

import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.KeyRegistry;
import io.strata.core.conf.Scope;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strata conf list [--scope master|worker|client]}. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description =
        "List every key with its effective value, its source, and whether it may change while running.")
final class ConfListCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = "--scope",
      paramLabel = "SCOPE",
      description = "Only keys read by: master, worker or client.")
  Scope scope;

  ConfListCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    Configuration conf = ctx.effectiveConf();
    ctx.out().printf("%-52s %-30s %-22s %s%n", "KEY", "VALUE", "SOURCE", "DYNAMIC");
    for (ConfKey<?> key : KeyRegistry.all()) {
      if (scope != null && !key.scope().appliesTo(scope)) {
        continue;
      }
      ctx.out()
          .printf(
              "%-52s %-30s %-22s %s%n",
              key.name(),
              conf.getText(key),
              conf.source(key).label(),
              key.isDynamic() ? "yes" : "restart");
    }
  }
}
