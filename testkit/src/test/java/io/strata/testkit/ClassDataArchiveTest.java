package io.strata.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real JVMs record and map the archive; the class loader's log says where a class came from. */
class ClassDataArchiveTest {
  @TempDir Path dir;
  private Path classes;

  @BeforeEach
  void compileAMainClass() throws IOException {
    Path src =
        Files.writeString(
            dir.resolve("Hello.java"),
            "public class Hello {"
                + " public static void main(String[] a) { System.out.println(\"hello\"); } }");
    classes = Files.createDirectories(dir.resolve("classes"));
    int rc =
        ToolProvider.getSystemJavaCompiler()
            .run(null, null, null, "-d", classes.toString(), src.toString());
    assertThat(rc).isZero();
    System.setProperty(ClassDataArchive.DIR_PROPERTY, dir.resolve("cds").toString());
  }

  @AfterEach
  void sharingOff() {
    System.clearProperty(ClassDataArchive.DIR_PROPERTY);
  }

  @Test
  void theFirstJvmRecords_oneAtATime_andTheNextMapsItsClasses() throws Exception {
    ClassDataArchive first = ClassDataArchive.forProcess("Hello", classes.toString(), List.of());
    assertThat(first.jvmOptions()).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    assertThat(first.classpath()).endsWith(".jar").startsWith(dir.resolve("cds").toString());
    ClassDataArchive whileRecording =
        ClassDataArchive.forProcess("Hello", classes.toString(), List.of());
    assertThat(whileRecording.jvmOptions()).isEmpty();
    assertThat(whileRecording.classpath()).isEqualTo(first.classpath());

    assertThat(run(first, List.of())).contains("hello");
    first.exited();

    ClassDataArchive next = ClassDataArchive.forProcess("Hello", classes.toString(), List.of());
    assertThat(next.jvmOptions()).anyMatch(o -> o.startsWith("-XX:SharedArchiveFile="));
    assertThat(run(next, List.of("-Xlog:class+load=info")))
        .containsPattern("Hello source: shared objects file");
  }

  @Test
  void aRecordOlderThanAJarOfItsPath_isMadeAgain_andAKilledRecorderFreesItsClaim()
      throws Exception {
    ClassDataArchive first = ClassDataArchive.forProcess("Hello", classes.toString(), List.of());
    run(first, List.of());
    first.exited();
    Files.setLastModifiedTime(
        Path.of(first.classpath()), FileTime.from(Instant.now().plusSeconds(60)));

    ClassDataArchive again = ClassDataArchive.forProcess("Hello", classes.toString(), List.of());
    assertThat(again.jvmOptions()).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    again.exited(); // as if killed: it recorded nothing
    assertThat(ClassDataArchive.forProcess("Hello", classes.toString(), List.of()).jvmOptions())
        .anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
  }

  @Test
  void offWithoutTheFolder_orWhenTheOptionsDecideSharing() {
    assertThat(ClassDataArchive.forProcess("Hello", classes.toString(), List.of("-Xshare:off")))
        .isNull();
    System.clearProperty(ClassDataArchive.DIR_PROPERTY);
    assertThat(ClassDataArchive.forProcess("Hello", classes.toString(), List.of())).isNull();
  }

  private static String run(ClassDataArchive sharing, List<String> more) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(sharing.jvmOptions());
    cmd.addAll(more);
    cmd.addAll(List.of("-cp", sharing.classpath(), "Hello"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
