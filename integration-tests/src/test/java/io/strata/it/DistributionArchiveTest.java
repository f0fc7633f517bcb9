package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.process.Version;
import io.strata.testkit.ScriptConf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive {@code mvn package} builds (dist), unpacked where there is no checkout and no Maven:
 * its lib/ holds what production processes run and nothing else, and a local cluster started from
 * it serves a file through the shell and through FUSE.
 */
class DistributionArchiveTest {
  /** Jars no master, worker, shell or FUSE process needs: tests', benches', drivers'. */
  private static final Pattern NOT_FOR_LIB =
      Pattern.compile(
          "(junit|hamcrest|opentest4j|assertj|awaitility|jqwik|mockito|.*minicluster|local-s3"
              + "|netty-all|strata-testkit|strata-bench|strata-ufs-|aws-|s3-|apache5-client"
              + "|hadoop-).*\\.jar");

  @TempDir static Path opt;
  private static Path home;

  @TempDir Path work;
  private Scripts scripts;

  @BeforeAll
  static void unpack() throws Exception {
    Path archive = Scripts.ROOT.resolve("dist/target/strata-" + Version.VERSION + ".tar.gz");
    assertThat(archive)
        .as("mvn package builds it (dist); -Dstrata.archive.skip=true leaves it out")
        .isRegularFile();
    Process tar =
        new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", opt.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(tar.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).as(out).isZero();
    home = opt.resolve("strata-" + Version.VERSION);
  }

  @AfterEach
  void stop() throws Exception {
    if (scripts != null) {
      scripts.run(noMaven(), "bin/strata-stop.sh");
    }
  }

  @Test
  void libHoldsTheRuntimeOnly_driversBenchesAndTheHadoopJarApart() throws IOException {
    List<String> lib = names(home.resolve("lib"));
    assertThat(lib)
        .contains(
            "strata-master-" + Version.VERSION + ".jar", "strata-fuse-" + Version.VERSION + ".jar")
        .noneMatch(n -> NOT_FOR_LIB.matcher(n).matches());
    assertThat(names(home.resolve("lib/ufs/s3")))
        .contains("strata-ufs-s3-" + Version.VERSION + ".jar")
        .anyMatch(n -> n.startsWith("s3-"))
        .noneMatch(lib::contains);
    assertThat(names(home.resolve("lib/ufs/hdfs")))
        .contains("strata-ufs-hdfs-" + Version.VERSION + ".jar")
        .anyMatch(n -> n.startsWith("hadoop-client-runtime-"))
        .noneMatch(lib::contains);
    assertThat(names(home.resolve("lib/bench")))
        .contains(
            "strata-bench-" + Version.VERSION + ".jar",
            "strata-testkit-" + Version.VERSION + ".jar")
        .noneMatch(lib::contains);
    assertThat(names(home.resolve("lib/hadoop")))
        .containsExactly("strata-hadoop-" + Version.VERSION + ".jar");
    assertThat(Files.size(home.resolve("lib/hadoop/strata-hadoop-" + Version.VERSION + ".jar")))
        .as("the shaded jar, not the module's own")
        .isGreaterThan(10L << 20);
    assertThat(home.resolve("NOTICE"))
        .content()
        .contains("io.netty:netty-buffer", "software.amazon.awssdk:s3", "Apache");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(home.resolve("bin/strata"))))
        .startsWith("rwx");
    assertThat(home.resolve("pom.xml")).doesNotExist();
    assertThat(home.resolve("lib/.built")).doesNotExist();
  }

  @Test
  void aLocalClusterFromTheArchive_servesAFileThroughTheShellAndFuse() throws Exception {
    ScriptConf site =
        ScriptConf.create(
            home, work, "strata.worker.page.store.mem.size=64MiB", "strata.fuse.web.port=0");
    scripts = new Scripts(site, home);
    Files.createDirectories(site.ufsRoot().resolve("data"));
    Files.writeString(site.ufsRoot().resolve("data/hello.txt"), "hello from the archive\n");

    Scripts.Result start = scripts.run(noMaven(), "bin/strata-start.sh", "local");
    assertThat(start.code()).as(start.out()).isZero();
    assertThat(start.out()).contains("Local cluster ready").doesNotContain("Building", "mvn");

    Scripts.Result cat = scripts.run(noMaven(), "bin/strata", "fs", "cat", "/data/hello.txt");
    assertThat(cat.out()).isEqualTo("hello from the archive\n");
    assertThat(scripts.run(noMaven(), "bin/strata", "version").out())
        .matches(
            "Strata "
                + Pattern.quote(Version.VERSION)
                + " \\(commit ([0-9a-f]{12}(-dirty)?|unknown), built \\d{4}-\\d\\d-\\d\\dT[0-9:]{8}Z\\)\n");
    // The master opens under-storages with the drivers of lib/ufs/: the HDFS driver is there and
    // says what it lacks for gs:// (without it: "the hdfs driver ... is missing").
    assertThat(scripts.run(noMaven(), "bin/strata", "fs", "mount", "/g", "gs://bucket/x").out())
        .contains("the hdfs driver finds no client for gs://");
    // The shell lists the drivers of lib/ufs/ and their options without carrying them itself.
    assertThat(scripts.run(noMaven(), "bin/strata", "fs", "mount", "--help").out())
        .contains("s3://bucket/prefix", "s3.endpoint", "hdfs.conf.dir", "local");

    Assumptions.assumeTrue(FuseHost.mountable(), "needs /dev/fuse, fusermount and libfuse2");
    Path mnt = Files.createDirectories(work.resolve("mnt"));
    Scripts.Result mount = scripts.run(noMaven(), "bin/strata", "fuse", "mount", mnt.toString());
    assertThat(mount.code()).as(mount.out()).isZero();
    try {
      assertThat(mnt.resolve("data/hello.txt")).hasContent("hello from the archive");
    } finally {
      scripts.run(noMaven(), "bin/strata", "fuse", "unmount", mnt.toString());
    }
  }

  /** A PATH whose mvn fails loudly: nothing started from the archive may build. */
  private Map<String, String> noMaven() throws IOException {
    Path bin = work.resolve("no-maven");
    if (!Files.exists(bin.resolve("mvn"))) {
      Files.createDirectories(bin);
      Files.writeString(
          bin.resolve("mvn"), "#!/bin/sh\necho 'mvn called from an install' >&2\nexit 97\n");
      Files.setPosixFilePermissions(
          bin.resolve("mvn"), PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return Map.of("PATH", bin + ":" + System.getenv("PATH"));
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> p.getFileName().toString())
          .sorted()
          .toList();
    }
  }
}
