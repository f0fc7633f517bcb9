package io.strata.bench;

import io.strata.testkit.OwnEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs a measurement main class in its own JVM (this JVM's classpath) and reads its JSON line. */
final class Probe {
  private static final Pattern FIELD = Pattern.compile("\"([a-z0-9_]+)\":(-?[0-9.]+)");

  private Probe() {}

  static Map<String, Double> run(String mainClass, String heap, String... args)
      throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap,
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
    cmd.addAll(List.of(args));
    Process p = OwnEnvironment.of(new ProcessBuilder(cmd)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(mainClass + " failed: " + out);
    }
    String last = out.strip().lines().reduce((a, b) -> b).orElse("");
    Map<String, Double> fields = new LinkedHashMap<>();
    Matcher m = FIELD.matcher(last);
    while (m.find()) {
      fields.put(m.group(1), Double.parseDouble(m.group(2)));
    }
    return fields;
  }
}
