package io.strata.shell.fuse;

import io.strata.core.conf.CommonKeys;
import io.strata.core.security.Credentials;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code strata fuse stat MOUNT_POINT}: what the kernel asked of a mount this host's scripts
 * started, from the mount's own {@code /metrics} (its web port is in the ready line the scripts
 * keep): requests by opcode (Strata's own loop; by operation on jnr-fuse), and the opens passed
 * through to a worker's whole file.
 */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    description =
        "What the kernel asked of a mount of this host: requests by opcode, opens passed through.")
final class FuseStatCommand implements Runnable {
  private static final Pattern WEB_PORT = Pattern.compile("\\bweb (\\d+)");
  private static final Pattern KERNEL =
      Pattern.compile(
          "^strata_fuse_kernel_requests_total\\{[^}]*opcode=\"([^\"]+)\"[^}]*\\} (\\S+)$",
          Pattern.MULTILINE);
  private static final Pattern OPERATION =
      Pattern.compile(
          "^strata_fuse_requests_seconds_count\\{[^}]*op=\"([^\"]+)\"[^}]*\\} (\\S+)$",
          Pattern.MULTILINE);

  private final ShellContext ctx;

  @Parameters(paramLabel = "MOUNT_POINT", description = "A Strata mount of this host.")
  Path mountPoint;

  @Option(names = "--json", description = "One JSON object.")
  boolean json;

  FuseStatCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    Path target = mountPoint.toAbsolutePath().normalize();
    String metrics = scrape(webPort(target));
    Map<String, Long> byOpcode = counts(KERNEL, metrics);
    boolean ownLoop = !byOpcode.isEmpty();
    Map<String, Long> requests = ownLoop ? byOpcode : counts(OPERATION, metrics);
    long passedThrough = single(metrics, "strata_fuse_passthrough_opens_total");
    long backing = single(metrics, "strata_fuse_passthrough_backing_files");
    if (json) {
      ctx.out()
          .println(
              "{\"mount_point\":\""
                  + target.toString().replace("\\", "\\\\").replace("\"", "\\\"")
                  + "\",\"engine\":\""
                  + (ownLoop ? "strata" : "jnr")
                  + "\",\"requests\":{"
                  + requests.entrySet().stream()
                      .map(e -> "\"" + e.getKey() + "\":" + e.getValue())
                      .collect(Collectors.joining(","))
                  + "},\"passthrough_opens\":"
                  + passedThrough
                  + ",\"backing_files\":"
                  + backing
                  + "}");
      return;
    }
    ctx.out().printf("%s (%s)%n", target, ownLoop ? "Strata's own FUSE loop" : "jnr-fuse");
    ctx.out().printf("opens passed through: %d; backing files now: %d%n", passedThrough, backing);
    ctx.out().printf("%-16s %s%n", ownLoop ? "OPCODE" : "OPERATION", "REQUESTS");
    requests.forEach((op, n) -> ctx.out().printf("%-16s %d%n", op, n));
  }

  /** The web port in the ready line the scripts keep for the mount of {@code target}. */
  private int webPort(Path target) {
    String logs = System.getenv("STRATA_LOGS_DIR");
    Path dir =
        Path.of(logs != null && !logs.isBlank() ? logs : ctx.conf().get(CommonKeys.LOGS_DIR));
    // As bin/strata-process.sh names a mount's process: its path with '/' as '_'.
    Path ready = dir.resolve("fuse" + target.toString().replace('/', '_') + ".ready");
    String line;
    try {
      line = Files.readString(ready);
    } catch (IOException e) {
      throw StrataException.notFound(
          target + " is not a mount this host's scripts started (no " + ready + ")");
    }
    Matcher m = WEB_PORT.matcher(line);
    if (!m.find()) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION, "the mount of " + target + " serves no web port");
    }
    return Integer.parseInt(m.group(1));
  }

  private String scrape(int port) {
    HttpRequest.Builder get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .timeout(Duration.ofSeconds(10));
    String token = Credentials.of(ctx.conf()).token();
    if (token != null) {
      get.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> r;
    try {
      r =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .build()
              .send(get.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new StrataException(
          StatusCode.UNAVAILABLE, "the mount's web port " + port + " does not answer: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted");
    }
    if (r.statusCode() != 200) {
      throw new StrataException(
          r.statusCode() == 401 ? StatusCode.UNAUTHENTICATED : StatusCode.UNAVAILABLE,
          "the mount's /metrics answered " + r.statusCode() + ": " + r.body().strip());
    }
    return r.body();
  }

  private static Map<String, Long> counts(Pattern p, String metrics) {
    Map<String, Long> counts = new TreeMap<>();
    Matcher m = p.matcher(metrics);
    while (m.find()) {
      counts.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return counts;
  }

  private static long single(String metrics, String name) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE)
            .matcher(metrics);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }
}
