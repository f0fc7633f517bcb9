package io.strata.bench.loader;

import io.strata.bench.Scripts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the loader bench reads of the mount's and the worker's {@code /metrics}. */
final class LoaderMeters {
  private final Scripts scripts;

  LoaderMeters(Scripts scripts) {
    this.scripts = scripts;
  }

  /** The mount's getattr, open, read and (kernel) lookup counts so far. */
  double[] mount(int webPort) throws Exception {
    String metrics = scrape(webPort, "mount");
    return new double[] {
      count(metrics, "getattr"),
      count(metrics, "open"),
      count(metrics, "read"),
      kernelCount(metrics, "lookup")
    };
  }

  /** The calls the worker has served so far, by method. */
  Map<String, Double> workerCalls() throws Exception {
    Matcher m =
        Pattern.compile(
                "strata_rpc_server_seconds_count\\{[^}]*method=\"([^\"]+)\"[^}]*\\} ([0-9.eE+]+)")
            .matcher(scrape(scripts.workerWebPort(), "worker"));
    Map<String, Double> calls = new TreeMap<>();
    while (m.find()) {
      calls.merge(m.group(1), Double.parseDouble(m.group(2)), Double::sum);
    }
    return calls;
  }

  /** The calls of each method between two {@link #workerCalls()}, those that changed only. */
  static Map<String, Double> callsBetween(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> made = new TreeMap<>();
    after.forEach(
        (method, n) -> {
          double d = n - before.getOrDefault(method, 0.0);
          if (d > 0) {
            made.put(method, d);
          }
        });
    return made;
  }

  private String scrape(int port, String what) throws Exception {
    HttpRequest.Builder get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .timeout(Duration.ofSeconds(10));
    // Local mode's processes hold the cluster secret, and ask for a token as the servers do.
    String authorization = scripts.metricsAuthorization();
    if (authorization != null) {
      get.header("Authorization", authorization);
    }
    HttpResponse<String> r =
        HttpClient.newHttpClient().send(get.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "the " + what + "'s /metrics answered " + r.statusCode() + ": " + r.body().strip());
    }
    return r.body();
  }

  /** Requests of operation {@code op} the mount served. */
  private static double count(String metrics, String op) {
    Matcher m =
        Pattern.compile(
                "strata_fuse_requests_seconds_count\\{[^}]*op=\"" + op + "\"[^}]*\\} ([0-9.eE+]+)")
            .matcher(metrics);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /** Requests of {@code opcode} as the kernel sent them (Strata's own loop counts them; else 0). */
  private static double kernelCount(String metrics, String opcode) {
    Matcher m =
        Pattern.compile(
                "strata_fuse_kernel_requests_total\\{[^}]*opcode=\""
                    + opcode
                    + "\"[^}]*\\} ([0-9.eE+]+)")
            .matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
