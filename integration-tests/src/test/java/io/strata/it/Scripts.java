package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.testkit.OwnEnvironment;
import io.strata.testkit.ScriptConf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code bin/} scripts of this checkout against the conf and logs folders of a {@link
 * ScriptConf} (as STRATA_CONF_DIR and STRATA_LOGS_DIR), with small heaps.
 */
final class Scripts {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** What a command printed (standard output and error together) and returned. */
  record Result(int code, String out) {}

  private final ScriptConf site;
  private final Path home;

  Scripts(ScriptConf site) {
    this(site, ROOT);
    assertThat(ROOT.resolve("lib"))
        .as("lib/ is built by the dist module before these tests")
        .isDirectory();
  }

  /** The scripts of the install (or checkout) {@code home}, run from it. */
  Scripts(ScriptConf site, Path home) {
    this.site = site;
    this.home = home;
  }

  Result run(String... command) throws Exception {
    return run(Map.of(), command);
  }

  /** Runs a command to its end (at most two minutes: then it is killed and the test fails). */
  Result run(Map<String, String> env, String... command) throws Exception {
    return run(Duration.ofMinutes(2), env, command);
  }

  /** Runs a command to its end, killed (and the test failed) past {@code limit}. */
  Result run(Duration limit, Map<String, String> env, String... command) throws Exception {
    Path out = Files.createTempFile("strata-script", ".out");
    try {
      ProcessBuilder pb =
          builder(env, command).redirectErrorStream(true).redirectOutput(out.toFile());
      Process p = pb.start();
      if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(
            List.of(command) + " did not finish within " + limit + ": " + Files.readString(out));
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /**
   * Starts a command with the cluster's environment; its standard output is the process's input
   * stream.
   */
  Process start(Map<String, String> env, String... command) throws IOException {
    return builder(env, command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static final String SHORT_LIVED = " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

  private ProcessBuilder builder(Map<String, String> env, String... command) {
    ProcessBuilder pb = OwnEnvironment.of(new ProcessBuilder(command)).directory(home.toFile());
    pb.environment().putAll(env);
    pb.environment().putAll(site.environment());
    // Small heaps, and C1 alone with the serial collector as the forked servers run: these
    // processes live seconds, where C2's compiles were most of their CPU (issue 55).
    pb.environment().put("STRATA_MASTER_JAVA_OPTS", "-Xmx256m" + SHORT_LIVED);
    pb.environment()
        .put("STRATA_WORKER_JAVA_OPTS", "-Xmx256m -XX:MaxDirectMemorySize=256m" + SHORT_LIVED);
    pb.environment()
        .put("STRATA_FUSE_JAVA_OPTS", "-Xmx256m -XX:MaxDirectMemorySize=256m" + SHORT_LIVED);
    // The S3 endpoint every local start now brings (issue 56).
    pb.environment()
        .put("STRATA_S3_JAVA_OPTS", "-Xmx256m -XX:MaxDirectMemorySize=256m" + SHORT_LIVED);
    return pb;
  }

  /** The pid a script recorded for process {@code name}. */
  long pid(String name) throws IOException {
    return Long.parseLong(Files.readString(site.logs().resolve(name + ".pid")).trim());
  }

  /** Whether a process runs; an exited one the container's init has not reaped yet does not. */
  static boolean running(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (IOException e) {
      return false;
    }
  }
}
