package io.strata.core.conf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is generated from the registry; the build fails when the committed file is
 * stale.
 */
class ConfigurationDocsTest {
  private static final Path DOC = Path.of("..", "docs", "configuration.md");

  @Test
  void committedDocs_matchTheRegistry() throws IOException {
    String fresh = ConfigDocs.render();
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "configuration.md"), fresh, StandardCharsets.UTF_8);
    if (Boolean.getBoolean("updateDocs")) {
      Files.writeString(DOC, fresh, StandardCharsets.UTF_8);
    }
    String committed = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
    assertThat(committed)
        .as(
            "docs/configuration.md is stale; regenerate it with "
                + "mvn -q -pl core test -Dtest=ConfigurationDocsTest -DupdateDocs=true")
        .isEqualTo(fresh);
  }

  @Test
  void everyKey_isDocumented() {
    String doc = ConfigDocs.render();
    for (ConfKey<?> key : KeyRegistry.all()) {
      assertThat(doc).contains("`" + key.name() + "`");
    }
  }
}
