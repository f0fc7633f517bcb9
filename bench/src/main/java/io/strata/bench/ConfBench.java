package io.strata.bench;

import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * {@code strata bench conf}: a master and N workers (separate JVMs). Each run changes a dynamic key
 * with updateConf and times, from the call's return, until every worker reports (on its /metrics)
 * that it applied the new version. Workers check with each heartbeat, so the sync interval is the
 * heartbeat interval; the expected figure is about half of it.
 */
@Command(
    name = "conf",
    mixinStandardHelpOptions = true,
    description = "Time from updateConf returning to every worker having applied the change.")
final class ConfBench implements Callable<Integer> {
  private static final String SERIES = "strata_conf_cluster_version{process=\"worker\"}";

  @Option(names = "--runs", defaultValue = "7", description = "Runs (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--workers",
      defaultValue = "3",
      description = "Workers (default ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--sync-interval",
      defaultValue = "1s",
      description =
          "The workers' heartbeat interval, at which they check the configuration (default ${DEFAULT-VALUE}).")
  String syncInterval;

  @Option(names = "--json", description = "Print one JSON object on the last line.")
  boolean json;

  private final HttpClient http = HttpClient.newHttpClient();

  @Override
  public Integer call() throws Exception {
    System.out.printf(
        "Starting 1 master and %d workers (heartbeat %s)...%n", workers, syncInterval);
    List<Double> applied = new ArrayList<>();
    try (ForkedCluster cluster =
            ForkedCluster.builder()
                .masters(1)
                .workers(workers)
                .property(WorkerKeys.HEARTBEAT_INTERVAL, syncInterval)
                .jvmOptions(List.of("-Xmx256m", "-XX:MaxDirectMemorySize=128m", "-XX:+UseSerialGC"))
                .start();
        MasterClient client = new MasterClient(cluster.clientConf())) {
      java.util.Random random = new java.util.Random();
      long intervalMs = io.strata.core.conf.ConfType.DURATION.parse(syncInterval).toMillis();
      for (int run = 1; run <= runs; run++) {
        // Back-to-back runs would land at the same point of the heartbeat cycle each time.
        Thread.sleep(random.nextInt((int) Math.max(1, intervalMs)));
        String value = (60 + run) + "s";
        ConfigView view =
            client.call(
                "updateConf",
                s ->
                    s.updateConf(
                        UpdateConfRequest.newBuilder()
                            .putValues(WorkerKeys.METADATA_TTL.name(), value)
                            .build()));
        long start = System.nanoTime();
        awaitApplied(cluster, view.getVersion());
        double seconds = (System.nanoTime() - start) / 1e9;
        applied.add(seconds);
        System.out.printf(
            Locale.ROOT,
            "run %d: every worker applied version %d after %.3f s%n",
            run,
            view.getVersion(),
            seconds);
      }
    }
    double interval = io.strata.core.conf.ConfType.DURATION.parse(syncInterval).toMillis() / 1000.0;
    Stats s = Stats.of(applied);
    System.out.println(
        "applied by every worker: " + s.format("s") + ", sync interval " + interval + " s");
    if (json) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("workers", workers);
      out.put("runs", runs);
      out.put("sync_interval_s", interval);
      out.put("applied_s_min", s.min());
      out.put("applied_s_median", s.median());
      out.put("applied_s_max", s.max());
      out.put("applied_median_vs_interval", s.median() / interval);
      System.out.println(Json.object(out));
    }
    return 0;
  }

  private void awaitApplied(ForkedCluster cluster, long version) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (int j = 0; j < workers; j++) {
      while (workerVersion(cluster.workerWebPort(j)) < version) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "worker " + j + " did not apply version " + version + " within 60 s");
        }
        Thread.sleep(5);
      }
    }
  }

  private double workerVersion(int port) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return body.lines()
        .filter(l -> l.startsWith(SERIES + " "))
        .findFirst()
        .map(l -> Double.parseDouble(l.substring(SERIES.length() + 1)))
        .orElse(0.0);
  }
}
