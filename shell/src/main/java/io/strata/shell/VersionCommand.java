package io.strata.shell;

import io.strata.core.process.Version;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import picocli.CommandLine.Command;

/** {@code strata version}: the version, and the commit and build time of the install's lib/. */
@Command(
    name = "version",
    mixinStandardHelpOptions = true,
    description = "Print the version of Strata, the commit it was built from and when.")
final class VersionCommand implements Runnable {
  private final ShellContext ctx;

  VersionCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    ctx.out().println("Strata " + Version.VERSION + build(System.getProperty("strata.home")));
  }

  /** ", commit C, built T" from lib/build.properties of {@code home} (dist writes it), or "". */
  static String build(String home) {
    if (home == null) {
      return "";
    }
    Path file = Path.of(home, "lib", "build.properties");
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (IOException e) {
      return ""; // not an install: a class path of its own, say
    }
    return " (commit "
        + p.getProperty("commit", "unknown")
        + ", built "
        + p.getProperty("built", "unknown")
        + ")";
  }
}
