package io.strata.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The docs list the benches {@code strata bench} has: no count to drift, no bench left out. */
class BenchListTest {
  private static final Path DOCS = Path.of("..", "docs");

  @Test
  void architectureMd_tablesEveryBench() throws IOException {
    String doc = Files.readString(DOCS.resolve("architecture.md"), StandardCharsets.UTF_8);
    List<String> tabled = new ArrayList<>();
    Matcher m =
        Pattern.compile("(?m)^\\| `([a-z][a-z0-9]*)` \\|").matcher(section(doc, "## bench"));
    while (m.find()) {
      tabled.add(m.group(1));
    }
    assertThat(tabled).containsExactlyElementsOf(benches());
  }

  @Test
  void designMd_namesEveryBenchButTheChecker() throws IOException {
    String doc = Files.readString(DOCS.resolve("design.md"), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("runs the end-to-end benches ([^.]+)\\.").matcher(doc);
    assertThat(m.find()).as("design.md's list of benches").isTrue();
    List<String> named = new ArrayList<>();
    Matcher name = Pattern.compile("`([a-z][a-z0-9]*)`").matcher(m.group(1));
    while (name.find()) {
      named.add(name.group(1));
    }
    assertThat(named)
        .containsExactlyElementsOf(benches().stream().filter(b -> !b.equals("integrity")).toList());
  }

  private static List<String> benches() {
    return List.copyOf(new CommandLine(new StrataBench()).getSubcommands().keySet());
  }

  private static String section(String doc, String heading) {
    int start = doc.indexOf(heading);
    int end = doc.indexOf("\n## ", start + heading.length());
    return doc.substring(start, end < 0 ? doc.length() : end);
  }
}
