package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.bench.cluster.ScriptConf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code bin/} scripts of this checkout against the conf and logs folders of a
 * {@link ScriptConf} (as STRATA_CONF_DIR and STRATA_LOGS_DIR), with small heaps.
 */
final class Scripts {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** What a script printed (standard output and error together) and returned. */
  record Result(int code, String out) {}

  private final ScriptConf site;

  Scripts(ScriptConf site) {
    assertThat(ROOT.resolve("lib")).as("lib/ is built by the dist module before these tests").isDirectory();
    this.site = site;
  }

  Result run(String... command) throws Exception {
    return run(Map.of(), command);
  }

  Result run(Map<String, String> env, String... command) throws Exception {
    Process p = start(env, command);
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", List.of(command)).isTrue();
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /** Starts a command with the cluster's environment; its output is the process's input stream. */
  Process start(Map<String, String> env, String... command) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    pb.environment().put("STRATA_CONF_DIR", site.conf().toString());
    pb.environment().put("STRATA_LOGS_DIR", site.logs().toString());
    pb.environment().put("STRATA_MASTER_JAVA_OPTS", "-Xmx256m");
    pb.environment().put("STRATA_WORKER_JAVA_OPTS", "-Xmx256m -XX:MaxDirectMemorySize=256m");
    pb.environment().put("STRATA_FUSE_JAVA_OPTS", "-Xmx256m -XX:MaxDirectMemorySize=256m");
    return pb.start();
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
