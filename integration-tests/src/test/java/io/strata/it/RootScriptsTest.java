package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78: the bin/ scripts, run as root, sourced conf/strata-env.sh and logs/local-cluster.env,
 * ran lib/'s jars and built with Maven whoever owned or could write them: any account that could
 * change one ran its commands as root. Now root refuses, in one line naming the path, a
 * configuration or logs folder another account owns or may write, and a source tree with such a
 * file.
 */
class RootScriptsTest {
  @TempDir Path dir;

  @BeforeEach
  void asRoot() {
    assumeTrue(
        "root".equals(System.getProperty("user.name")), "the scripts' root checks need root");
  }

  @Test
  void aFolderAnotherAccountMayWrite_isRefused_aRootOnlyOneIsNot() throws Exception {
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Path logs = Files.createDirectories(dir.resolve("logs"));
    Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwx------"));
    Map<String, String> env =
        Map.of("STRATA_CONF_DIR", conf.toString(), "STRATA_LOGS_DIR", logs.toString());
    assertThat(source(env)).isEqualTo("0 sourced");

    Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThat(source(env))
        .isEqualTo(
            "1 strata: refusing to run as root: "
                + conf
                + " is owned or writable by another account (chown root and chmod go-w it, or run"
                + " as that account)");
    Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rwxr-xr-x"));

    Files.setAttribute(logs, "unix:uid", 4002);
    assertThat(source(env)).startsWith("1 strata: refusing to run as root: " + logs + " is owned");
    Files.setAttribute(logs, "unix:uid", 0);

    Path env2 = Files.writeString(conf.resolve("strata-env.sh"), "echo pwned\n");
    Files.setAttribute(env2, "unix:gid", 4002);
    Files.setPosixFilePermissions(env2, PosixFilePermissions.fromString("rw-rw-r--"));
    assertThat(source(env))
        .as("nor runs its strata-env.sh")
        .doesNotContain("pwned")
        .startsWith("1 ");
  }

  @Test
  void aSourceTreeWithAnotherAccountsFile_isNotBuiltByRoot() throws Exception {
    Path tree = Files.createDirectories(dir.resolve("src/main/java"));
    Path file = Files.writeString(tree.resolve("A.java"), "class A {}\n");
    Files.createSymbolicLink(tree.resolve("link"), file);
    Files.createDirectories(dir.resolve("core/target"));
    Files.setAttribute(dir.resolve("core/target"), "unix:uid", 4002);
    assertThat(untrustedSource()).as("links and build output aside").isEmpty();
    Files.setAttribute(file, "unix:uid", 4002);
    assertThat(untrustedSource()).isEqualTo(file.toString());
  }

  /** The exit code and output of sourcing the scripts' common part as root with {@code env}. */
  private static String source(Map<String, String> env) throws Exception {
    return bash(env, ". \"$1/bin/strata-common.sh\" && echo sourced");
  }

  /** What the scripts' check finds in this test's tree ("" for nothing). */
  private String untrustedSource() throws Exception {
    String out = bash(Map.of(), ". \"$1/bin/strata-common.sh\" && strata_untrusted_source " + dir);
    assertThat(out).startsWith("0");
    return out.substring(1).trim();
  }

  private static String bash(Map<String, String> env, String script) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", script, "bash", Scripts.ROOT.toString())
            .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return p.exitValue() + " " + out;
  }
}
