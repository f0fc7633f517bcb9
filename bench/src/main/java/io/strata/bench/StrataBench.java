package io.strata.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code strata bench ...}: end-to-end benchmarks against real Strata processes. Each measures what
 * it compares against in the same run, repeats, and prints min/median/max; with --json the last
 * line is one JSON object.
 */
@Command(
    name = "strata bench",
    mixinStandardHelpOptions = true,
    description = {
      "Measure Strata end to end.",
      "Every bench starts a cluster of its own, on free loopback ports, in folders of its own and,"
          + " where it runs TOKEN mode, with a secret of its own: a local cluster running beside it"
          + " and the STRATA_ variables of this shell change nothing."
    },
    subcommands = {
      FailoverBench.class,
      ConfBench.class,
      CacheBench.class,
      io.strata.bench.read.ReadBench.class,
      io.strata.bench.load.LoadBench.class,
      io.strata.bench.ufs.UfsBench.class,
      io.strata.bench.hadoop.HadoopBench.class,
      io.strata.bench.fuse.FuseBench.class,
      io.strata.bench.loader.LoaderBench.class,
      io.strata.bench.small.SmallFilesBench.class,
      io.strata.bench.startup.StartupBench.class,
      io.strata.bench.s3.S3Bench.class,
      IntegrityBench.class
    })
public final class StrataBench implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    CommandLine cmd = new CommandLine(new StrataBench());
    cmd.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          c.getErr()
              .println(
                  "strata bench: "
                      + (e instanceof io.strata.core.status.StrataException se ? se.oneLine() : e));
          return 1;
        });
    System.exit(cmd.execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
