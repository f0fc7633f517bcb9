package io.strata.shell.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.ufs.UfsFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A driver dropped into lib/ufs/NAME/ shows in fs mount's help, and only there. */
class DriverHelpTest {
  @TempDir Path home;

  @Test
  void aDriverFolderOfTheInstall_isListedWithItsOptions_butNotLoadedForCommands() throws Exception {
    dropDriver(home.resolve("lib/ufs/fake"));

    String help = DriverHelp.render(home);

    assertThat(help)
        .contains("local")
        .contains("fake   fake://bucket/prefix")
        .contains("fake.region", "where its buckets live")
        .doesNotContain("no lib/ufs/");
    assertThat(UfsFactory.find("fake://bucket/x")).as("the shell's own class path").isEmpty();
  }

  @Test
  void withoutDriverFolders_theLocalDriverIsListed_andWhyNoOther() {
    assertThat(DriverHelp.render(home)).contains("local", "no lib/ufs/ in " + home);
    assertThat(DriverHelp.render(null)).contains("local").doesNotContain("no lib/ufs/");
  }

  /** Compiles a provider into {@code folder}/fake.jar with its service entry. */
  private static void dropDriver(Path folder) throws IOException {
    Path src = Files.createDirectories(folder.resolve("src/fake"));
    Files.writeString(
        src.resolve("FakeProvider.java"),
        """
        package fake;
        import io.strata.core.ufs.*;
        import java.util.*;
        public class FakeProvider implements UnderFileSystemProvider {
          public String name() { return "fake"; }
          public Set<String> schemes() { return Set.of("fake"); }
          public String describe() { return "fake://bucket/prefix"; }
          public List<UfsOption> options() {
            return List.of(new UfsOption("fake.region", "where its buckets live")); }
          public UnderFileSystem open(String u, Map<String, String> o, java.time.Duration t) {
            throw new UnsupportedOperationException(); }
          public String normalize(String u) { return u; }
        }
        """);
    Path classes = Files.createDirectories(folder.resolve("classes"));
    int rc =
        ToolProvider.getSystemJavaCompiler()
            .run(
                null,
                null,
                null,
                "-cp",
                System.getProperty("java.class.path"),
                "-d",
                classes.toString(),
                src.resolve("FakeProvider.java").toString());
    assertThat(rc).isZero();
    try (OutputStream out = Files.newOutputStream(folder.resolve("fake.jar"));
        JarOutputStream jar = new JarOutputStream(out)) {
      jar.putNextEntry(new JarEntry("fake/FakeProvider.class"));
      Files.copy(classes.resolve("fake/FakeProvider.class"), jar);
      jar.putNextEntry(
          new JarEntry("META-INF/services/io.strata.core.ufs.UnderFileSystemProvider"));
      jar.write("fake.FakeProvider\n".getBytes(StandardCharsets.UTF_8));
    }
  }
}
