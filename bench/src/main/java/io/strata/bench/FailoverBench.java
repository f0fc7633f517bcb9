package io.strata.bench;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strata bench failover}: a group of three masters (separate JVMs) and a worker; each run
 * kills the leader with SIGKILL and times until a client's next cluster-view call succeeds, through
 * the real client (its address rotation, hint following and backoff), then restarts the killed
 * master and waits until it has caught up. The baseline is the same call with every master up.
 */
@Command(
    name = "failover",
    mixinStandardHelpOptions = true,
    description = "Time from kill -9 of the leading master to the first successful client call.")
final class FailoverBench implements Callable<Integer> {
  private static final int BASELINE_CALLS = 20;

  @Option(names = "--runs", defaultValue = "5", description = "Runs (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Configuration defaults = new Configuration();
    long minMs = defaults.get(MasterKeys.ELECTION_TIMEOUT_MIN).toMillis();
    long maxMs = defaults.get(MasterKeys.ELECTION_TIMEOUT_MAX).toMillis();
    System.out.printf(
        "Starting 3 masters and 1 worker (election timeout %d-%d ms)...%n", minMs, maxMs);
    List<Double> failovers = new ArrayList<>();
    List<Double> baseline = new ArrayList<>();
    try (ForkedCluster cluster =
            ForkedCluster.builder()
                .masters(3)
                .workers(1)
                .jvmOptions(List.of("-Xmx512m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC"))
                .start();
        MasterClient client = new MasterClient(cluster.clientConf())) {
      for (int run = 1; run <= runs; run++) {
        List<Double> calls = new ArrayList<>();
        for (int i = 0; i < BASELINE_CALLS; i++) {
          calls.add(timeCall(client));
        }
        baseline.add(Stats.of(calls).median());
        int leader = cluster.awaitLeader(Duration.ofSeconds(30));
        long start = System.nanoTime();
        cluster.master(leader).kill();
        ClusterView view = view(client);
        double seconds = (System.nanoTime() - start) / 1e9;
        failovers.add(seconds);
        int next = cluster.awaitLeader(Duration.ofSeconds(30));
        System.out.printf(
            Locale.ROOT,
            "run %d: %.3f s (killed master-%d, new leader master-%d, %d workers known)%n",
            run,
            seconds,
            leader,
            next,
            view.getWorkersCount());
        cluster.restart(cluster.master(leader));
      }
    }
    Stats f = Stats.of(failovers);
    Stats b = Stats.of(baseline);
    System.out.println("failover: " + f.format("s"));
    System.out.println(
        "baseline (same call, every master up, median of "
            + BASELINE_CALLS
            + " per run): "
            + Stats.of(baseline.stream().map(x -> x * 1000).toList()).format("ms"));
    if (json) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("runs", runs);
      out.put("failover_s_min", f.min());
      out.put("failover_s_median", f.median());
      out.put("failover_s_max", f.max());
      out.put("baseline_call_ms_median", b.median() * 1000);
      out.put("election_timeout_min_ms", minMs);
      out.put("election_timeout_max_ms", maxMs);
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private static ClusterView view(MasterClient client) {
    return client.call(
        "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
  }

  private static double timeCall(MasterClient client) {
    long start = System.nanoTime();
    view(client);
    return (System.nanoTime() - start) / 1e9;
  }
}
