package io.strata.bench;

import io.strata.testkit.OwnEnvironment;
import io.strata.testkit.ScriptConf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code bin/} scripts of this install, run against a cluster of their own: a conf folder
 * with free loopback ports and a logs folder in a work folder (STRATA_CONF_DIR, STRATA_LOGS_DIR),
 * so the bench never touches the install's own cluster.
 */
public final class Scripts {
  /** What a script printed, and its wall time. */
  public record Result(int code, String out, double seconds) {}

  private final Path home;
  private final ScriptConf site;

  public Scripts(Path home, Path work) throws IOException {
    this(home, work, new String[0]);
  }

  /** With {@code siteLines} ({@code key=value}) added to the cluster's site file. */
  public Scripts(Path home, Path work, String... siteLines) throws IOException {
    this.home = home;
    this.site = ScriptConf.create(home, work, siteLines);
  }

  public int workerWebPort() {
    return site.workerWebPort();
  }

  /** The Authorization header for the worker's /metrics (null when none is needed yet). */
  public String metricsAuthorization() {
    return site.metricsAuthorization();
  }

  public Path ufsRoot() {
    return site.ufsRoot();
  }

  public Path confDir() {
    return site.conf();
  }

  /** The secret the scripts made for the cluster (it configures none). */
  public Path secretFile() {
    return site.secretFile();
  }

  public Result run(String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(command));
    cmd.set(0, home.resolve(command[0]).toString());
    ProcessBuilder pb =
        OwnEnvironment.of(new ProcessBuilder(cmd))
            .directory(home.toFile())
            .redirectErrorStream(true);
    pb.environment().putAll(site.environment());
    long start = System.nanoTime();
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not finish within 180 s");
    }
    return new Result(
        p.exitValue(), new String(out, StandardCharsets.UTF_8), (System.nanoTime() - start) / 1e9);
  }

  /** Runs a script that must succeed. */
  public Result must(String... command) throws IOException, InterruptedException {
    Result r = run(command);
    if (r.code() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + r.out().strip());
    }
    return r;
  }

  /** The pid of a process the scripts started, by name (master, worker, fuse_...); -1 if none. */
  public long pid(String name) throws IOException {
    Path file = site.logs().resolve(name + ".pid");
    return Files.exists(file) ? Long.parseLong(Files.readString(file).trim()) : -1;
  }

  /** Resident memory of a process, in bytes (VmRSS). */
  public static long rss(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IOException("no VmRSS for pid " + pid);
  }
}
