package io.strata.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Reads a process's /metrics the way Prometheus would. */
final class Scrape {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private Scrape() {}

  static String page(int webPort, String path) throws IOException, InterruptedException {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + webPort + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * The value of one series, e.g. {@code strata_worker_ufs_bytes_read_total{process="worker"}}; 0
   * if absent.
   */
  static double value(int webPort, String series) throws IOException, InterruptedException {
    return page(webPort, "/metrics")
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .orElse(0.0);
  }

  /** How many calls of one gRPC method a server has answered. */
  static double rpcCount(int webPort, String process, String method)
      throws IOException, InterruptedException {
    String prefix =
        "strata_rpc_server_seconds_count{method=\"" + method + "\",process=\"" + process + "\"";
    return page(webPort, "/metrics")
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
