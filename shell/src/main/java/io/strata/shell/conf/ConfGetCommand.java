package io.strata.shell.conf;

import io.strata.core.conf.ConfKey;
import io.strata.core.conf.KeyRegistry;
import io.strata.core.conf.Source;
import io.strata.shell.ShellContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata conf get KEY}. */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Print the effective value of a configuration key in this shell's configuration.")
final class ConfGetCommand implements Runnable {
  private final ShellContext ctx;

  @Option(names = {"-s", "--source"}, description = "Also say where the value came from.")
  boolean source;

  @Parameters(index = "0", paramLabel = "KEY", description = "A key, e.g. strata.worker.page.size.")
  String name;

  ConfGetCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ConfKey<?> key = KeyRegistry.require(name, "");
    String value = ctx.conf().getText(key);
    if (source) {
      Source from = ctx.conf().source(key);
      ctx.out().println(value + "  (" + (from == Source.DEFAULT ? from.label() : from.label() + ": "
          + ctx.conf().origin(key)) + ")");
    } else {
      ctx.out().println(value);
    }
  }
}
