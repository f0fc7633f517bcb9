package io.strata.shell.conf;

import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.KeyRegistry;
import io.strata.core.conf.Source;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetConfigRequest;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata conf get [KEY] [--cluster] [--source]}. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    description =
        "Print the effective value of a key (or of every key): this host's configuration with the "
            + "cluster's overrides.")
final class ConfGetCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = {"-s", "--source"},
      description = "Also say where each value came from.")
  boolean source;

  @Option(
      names = "--cluster",
      description = "Print the cluster override only (what updateConf set), from the master.")
  boolean cluster;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "KEY",
      description = "A key, e.g. strata.worker.page.size.")
  String name;

  ConfGetCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    List<ConfKey<?>> keys =
        name == null ? List.copyOf(KeyRegistry.all()) : List.of(KeyRegistry.require(name, ""));
    if (cluster) {
      printCluster(keys);
      return;
    }
    Configuration conf = ctx.effectiveConf();
    for (ConfKey<?> key : keys) {
      String value = conf.getText(key);
      String line = name == null ? key.name() + "=" + value : value;
      if (source) {
        Source from = conf.source(key);
        line +=
            "  ("
                + (from == Source.DEFAULT ? from.label() : from.label() + ": " + conf.origin(key))
                + ")";
      }
      ctx.out().println(line);
    }
  }

  private void printCluster(List<ConfKey<?>> keys) {
    ConfigView view =
        ctx.master().call("getConfig", s -> s.getConfig(GetConfigRequest.getDefaultInstance()));
    if (name != null) {
      String value = view.getOverridesMap().get(name);
      ctx.out().println(value != null ? value : "(no cluster override)");
      return;
    }
    ctx.out()
        .println(
            "# cluster configuration version " + view.getVersion() + ", hash " + view.getHash());
    keys.stream()
        .filter(k -> view.getOverridesMap().containsKey(k.name()))
        .forEach(k -> ctx.out().println(k.name() + "=" + view.getOverridesMap().get(k.name())));
  }
}
